/**
 * The package as a Temporal team installs it: `npm pack`, the tarball installed into a scratch project outside the
 * repository, and there, with only the documented entry points, one worker that registers our workflows and
 * activities next to a workflow of the team's own, which runs our pipeline as a child, against the simulator; then
 * the packed `dataops` CLI reads that child. A deep import fails: the package's `exports` allow only its entry points.
 * The optional packages (tracing, the S3 store) are not installed, and asking for tracing without them says so.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { packageRoot } from '../../src/local/package-root.js';
import { runProcess, simulatorService, startProcess, type Proc } from '../helpers/processes.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const LONG = { timeout: 10 * 60_000 };
const root = packageRoot();
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: process.env });

/**
 * The team's workflows: ours, re-exported from the package's workflows entry, and its own, one of them with the bare
 * name of one of ours (\`runOrder\`), calling activities with the bare names of ours (\`login\`, \`cancelJob\`).
 */
const TEAM_WORKFLOWS = `
export * from 'dataops-temporal/workflows';
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';

export async function runOrder(what) {
  const { login, cancelJob } = proxyActivities({ startToCloseTimeout: '10 seconds' });
  return [await login(what), await cancelJob(what)];
}

export async function nightlyQuality(input) {
  const result = await executeChild('dataops.dataQualityPipeline', {
    args: [input],
    workflowId: workflowInfo().workflowId + '-pipeline',
  });
  return { verdict: result.status, profilingJob: result.profiling.job.jobId };
}
`;

/**
 * The team's worker: our activities and its own, our workflows and its own; the waits on a second worker, on the queue
 * the configuration names (the team's own name for it here: DATAOPS_WAITS_TASK_QUEUE).
 */
const TEAM_WORKER = `
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from 'dataops-temporal/activities';
import { buildActivityDeps, loadWorkerConfig, startTracing, STICKY_TIMEOUT_MS, waitsQueueActivities } from 'dataops-temporal/worker';

const config = loadWorkerConfig();
const tracing = await startTracing(config);
const deps = await buildActivityDeps(config);
const team = { login: async (who) => 'team login of ' + who, cancelJob: async (what) => 'team cancel of ' + what };
const activities = { ...createActivities(deps), ...team };
const connection = await NativeConnection.connect({ address: config.temporal.address });
const taskQueue = config.temporal.taskQueue;
const main = await Worker.create({
  connection,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('./team-workflows.js', import.meta.url)),
  activities,
  stickyQueueScheduleToStartTimeout: STICKY_TIMEOUT_MS,
  ...tracing?.worker,
});
const waits = await Worker.create({
  connection,
  taskQueue: config.waitsTaskQueue,
  activities: waitsQueueActivities(activities),
});
console.log('team worker running');
await Promise.all([main.run(), waits.run()]);
`;

/**
 * The team's replay check, as a team runs one in its own CI: the pipeline's history fetched, written as JSON and read
 * back (the SDK's proto conversion, with the protobufjs the team's tree holds), and replayed against its workflows.
 */
const TEAM_REPLAY = `
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';

const [address, workflowId] = process.argv.slice(2);
const connection = await Connection.connect({ address });
const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
await connection.close();
const json = historyToJSON(history);
await Worker.runReplayHistory(
  { workflowsPath: fileURLToPath(new URL('./team-workflows.js', import.meta.url)) },
  historyFromJSON(JSON.parse(json)),
  workflowId,
);
console.log('replayed ' + JSON.parse(json).events.length + ' events');
`;

/** The lowest TypeScript the package claims (its peer range): the team's compiler. */
const LOWEST_TYPESCRIPT = '5.7.3';

/**
 * The team's TypeScript, compiled strict with `skipLibCheck: false`, so every declaration file it reaches is checked
 * (the optional packages are not installed): the typed child call, the failure catalogue, the worker's exports.
 */
const TEAM_TS = `
import { executeChild } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import type { DataopsWorkflow, DataQualityPipelineInput } from 'dataops-temporal/contract';
import { FAILURE_GUARDS, FAILURES, failureOf, type FailureTypeName } from 'dataops-temporal/contract';
import { createActivities } from 'dataops-temporal/activities';
import { startDataops } from 'dataops-temporal/client';
import { startSimulator } from 'dataops-temporal/simulator';
import {
  buildActivityDeps,
  ConfigError,
  loadWorkerConfig,
  startTracing,
  STICKY_TIMEOUT_MS,
  waitsQueueActivities,
} from 'dataops-temporal/worker';

export async function nightlyQuality(input: DataQualityPipelineInput): Promise<'passed' | 'failed'> {
  const result = await executeChild<DataopsWorkflow<'dataQualityPipeline'>>('dataops.dataQualityPipeline', {
    args: [input],
  });
  // @ts-expect-error the result is typed (not any): its status is a string union, not a number
  const wrong: number = result.status;
  void wrong;
  return result.status;
}

export async function wrongInput(): Promise<void> {
  // @ts-expect-error the input is typed: a number is not the pipeline's input
  await executeChild<DataopsWorkflow<'dataQualityPipeline'>>('dataops.dataQualityPipeline', { args: [42] });
}

export function explain(err: unknown): string {
  const failed = failureOf(err, FAILURES.JobFailed);
  if (failed) return 'the job failed: ' + failed.message;
  if (FAILURE_GUARDS.QualityGateFailed(err)) return 'gates: ' + err.type;
  const name: FailureTypeName = 'SearchAttributesMissing';
  return err instanceof ConfigError ? err.problems.join('; ') : name;
}

export async function teamWorker(): Promise<void> {
  const config = loadWorkerConfig();
  const tracing = await startTracing(config);
  const activities = createActivities(await buildActivityDeps(config));
  const waits = await Worker.create({ taskQueue: config.waitsTaskQueue, activities: waitsQueueActivities(activities) });
  const sticky: number = STICKY_TIMEOUT_MS; // what a team's main worker sets as stickyQueueScheduleToStartTimeout
  void [tracing?.worker.interceptors, waits, startDataops, startSimulator, sticky];
}
`;

describe('the packed package in a project of its own', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  let scratch: string;
  let packed: { files: { path: string }[] }[];
  let worker: Proc | undefined;

  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator());
    scratch = mkdtempSync(join(tmpdir(), 'dataops-consumer-'));
    // Packed from what `npm test` built (prepack would build it again).
    packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], root)) as never;
    const tarball = join(scratch, (packed[0] as unknown as { filename: string }).filename);
    const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const temporal = Object.fromEntries(
      Object.entries(own.devDependencies).filter(([k]) => k.startsWith('@temporalio/')),
    );
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({
        name: 'team-worker',
        private: true,
        type: 'module',
        dependencies: { 'dataops-temporal': `file:${tarball}`, ...temporal },
        // @types/ms: the SDK's own declarations (@temporalio/common) import ms's types, which ms 3 does not ship.
        devDependencies: {
          typescript: LOWEST_TYPESCRIPT,
          '@types/node': own.devDependencies['@types/node'],
          '@types/ms': '^2.1.0',
        },
      }),
    );
    npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], scratch);
    writeFileSync(join(scratch, 'team-workflows.js'), TEAM_WORKFLOWS);
    writeFileSync(join(scratch, 'team-worker.js'), TEAM_WORKER);
    writeFileSync(join(scratch, 'team-replay.js'), TEAM_REPLAY);
    writeFileSync(join(scratch, 'team.ts'), TEAM_TS);
    // Named apart from team-workflows.js, which the worker bundles (the bundler would take a .ts of the same name).
    writeFileSync(join(scratch, 'team-workflows-typed.ts'), "export * from 'dataops-temporal/workflows';\n");
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
        },
        files: ['team.ts', 'team-workflows-typed.ts'],
      }),
    );
  }, LONG);
  after(async () => {
    await worker?.stop('SIGKILL');
    await sim?.close();
    await t?.env.teardown();
  });

  test('the tarball ships built JavaScript with types and source maps, and nothing from test/', () => {
    const files = packed[0]!.files.map((f) => f.path);
    for (const entry of [
      'activities/index',
      'workflows/index',
      'client/index',
      'contract/index',
      'worker',
      'simulator/index',
      'starter',
    ])
      for (const ext of ['.js', '.d.ts', '.js.map'])
        assert.ok(files.includes(`dist/src/${entry}${ext}`), `dist/src/${entry}${ext} is packed`);
    assert.deepEqual(
      files.filter((f) => /^(test|bench|src)\/|^dist\/(test|bench)\//.test(f)),
      [],
      'no sources, tests or benchmarks',
    );
  });

  test(
    "a team's workflow runs our pipeline as a child on the team's worker; the packed CLI reads it",
    LONG,
    async () => {
      const address = t.env.connection.options.address;
      const taskQueue = uniqueTaskQueue('team');
      worker = startProcess([join(scratch, 'team-worker.js')], {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        DATAOPS_BLOB_DIR: join(scratch, 'blobs'),
        // Every other setting at its default: the dev server's namespace has none of our search attributes registered,
        // and the first workflow's input check registers them.
        DATAOPS_WAITS_TASK_QUEUE: `${taskQueue}.long-waits`,
        ...simulatorService(sim.url),
      });
      await eventually('the team worker', () => worker!.output().includes('team worker running'), {
        tries: 2_400,
        delayMs: 50,
      });
      const input = {
        tableGroupId: SEED_IDS.tableGroups.finance,
        testSuiteId: SEED_IDS.testSuites.financeProd,
        testGeneration: 'skip',
        pollIntervalMs: 200,
      };
      const workflowId = uniqueTaskQueue('nightly');
      const handle = await t.env.client.workflow.start('nightlyQuality', { taskQueue, workflowId, args: [input] });
      // Bounded, so that a run that never ends says where it stands and what the team's worker said.
      const ended = await Promise.race([handle.result(), delay(240_000, undefined, { ref: false })]);
      if (ended === undefined) {
        const child = await t.env.client.workflow
          .getHandle(`${workflowId}-pipeline`)
          .describe()
          .catch(() => undefined);
        assert.fail(
          `no result in 240 s (child: ${child?.status.name ?? 'none'}); the team worker:\n${worker.output()}`,
        );
      }
      const result = ended as { verdict: string; profilingJob: string };
      assert.equal(result.verdict, 'passed', worker.output());
      assert.equal(sim.controls.job(result.profilingJob)?.table_group_id, input.tableGroupId);
      // The pipeline's job waits ran on the queue the configuration names, not on `<queue>-waits`.
      const events = (await t.env.client.workflow.getHandle(`${workflowId}-pipeline`).fetchHistory()).events ?? [];
      const waits = events
        .map((e) => e.activityTaskScheduledEventAttributes)
        .filter((a) => /wait/i.test(a?.activityType?.name ?? ''));
      assert.ok(waits.length >= 2, 'the profiling run and the test run were waited for');
      assert.deepEqual(new Set(waits.map((a) => a?.taskQueue?.name)), new Set([`${taskQueue}.long-waits`]));
      // Every activity of ours is registered, and scheduled, under its prefixed name.
      const types = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      assert.ok(types.length > 0 && types.every((n) => n.startsWith('dataops.')), types.join(', '));

      // The team's own workflow and activities with the bare names of ours run beside them, each its own.
      const own = await t.env.client.workflow.execute('runOrder', {
        taskQueue,
        workflowId: uniqueTaskQueue('team-order'),
        args: ['nightly'],
      });
      assert.deepEqual(own, ['team login of nightly', 'team cancel of nightly']);

      // The team replays the pipeline's JSON history in its own project: one protobufjs for the SDK's packages.
      const replay = await runProcess(
        process.execPath,
        [join(scratch, 'team-replay.js'), address, `${workflowId}-pipeline`],
        {},
      );
      assert.equal(replay.code, 0, replay.out);
      assert.match(replay.out, /replayed \d+ events/);

      const cli = await runProcess(
        join(scratch, 'node_modules', '.bin', 'dataops'),
        ['status', `${workflowId}-pipeline`, '--json'],
        {
          TEMPORAL_ADDRESS: address,
        },
      );
      assert.equal(cli.code, 0, cli.out);
      const status = JSON.parse(cli.out.slice(cli.out.indexOf('{'))) as { status: string; type: string };
      assert.equal(status.type, 'dataops.dataQualityPipeline');
      assert.equal(status.status, 'COMPLETED');
    },
  );

  test('the optional packages stay out unless wanted; tracing asked for without them is refused, naming them', async () => {
    for (const name of [
      '@aws-sdk/client-s3',
      '@opentelemetry/sdk-trace-node',
      '@opentelemetry/exporter-trace-otlp-http',
    ])
      assert.ok(!existsSync(join(scratch, 'node_modules', name)), `${name} is not installed`);
    const worker = join(scratch, 'node_modules', 'dataops-temporal', 'dist', 'src', 'worker.js');
    const run = await runProcess(process.execPath, [worker], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      ...simulatorService(sim.url),
    });
    assert.equal(run.code, 1, run.out);
    assert.match(run.out, /OTEL_EXPORTER_OTLP_ENDPOINT \(tracing\): needs @opentelemetry\/exporter-trace-otlp-http/);
    // The team's own worker the same: buildActivityDeps refuses, so it never runs without the tracing it was asked for.
    const team = await runProcess(process.execPath, [join(scratch, 'team-worker.js')], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      ...simulatorService(sim.url),
    });
    assert.notEqual(team.code, 0, team.out);
    assert.match(team.out, /OTEL_EXPORTER_OTLP_ENDPOINT \(tracing\): needs @opentelemetry\/exporter-trace-otlp-http/);
    assert.doesNotMatch(team.out, /team worker running/);
  });

  test('the simulator is a command of the package: dataops-simulator', async () => {
    const bin = join(scratch, 'node_modules', '.bin', 'dataops-simulator');
    const help = await runProcess(bin, ['--help'], {});
    assert.equal(help.code, 0, help.out);
    assert.match(help.out, /^usage: dataops-simulator \[--port N\]/m);
    const proc = startProcess([bin, '--port', '0'], {});
    try {
      const url = await eventually(
        'the simulator to listen',
        () => /listening on (http:\/\/\S+)/.exec(proc.output())?.[1],
      );
      const health = (await (await fetch(`${url}/api/v1/health`)).json()) as { status: string };
      assert.equal(health.status, 'ok');
    } finally {
      await proc.stop('SIGTERM');
    }
  });

  test("one protobufjs for the SDK: the package asks for it as a peer, so the team's tree holds one copy at its root", () => {
    // Every installed copy, wherever npm nested it.
    const copies: string[] = [];
    const look = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (!e.isDirectory()) continue;
        const path = join(dir, e.name);
        if (e.name === 'protobufjs')
          copies.push(
            `${path}@${(JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { version: string }).version}`,
          );
        else if (
          e.name === 'node_modules' ||
          e.name.startsWith('@') ||
          dir.endsWith('node_modules') ||
          /node_modules\/@[^/]+$/.test(dir)
        )
          look(path);
      }
    };
    look(join(scratch, 'node_modules'));
    const eights = copies.filter((c) => c.includes('@8.'));
    assert.deepEqual(
      eights.map((c) => c.replace(scratch, '').replace(/@8\..*/, '')),
      ['/node_modules/protobufjs'],
      copies.join('\n'),
    );
  });

  test(`the team's TypeScript compiles, strict, with skipLibCheck off, on TypeScript ${LOWEST_TYPESCRIPT}`, async () => {
    const tsc = await runProcess(join(scratch, 'node_modules', '.bin', 'tsc'), ['-v'], {});
    assert.match(tsc.out, new RegExp(`Version ${LOWEST_TYPESCRIPT.replace(/\./g, '\\.')}`));
    const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    assert.equal(own.peerDependencies.typescript, `>=${LOWEST_TYPESCRIPT.split('.').slice(0, 2).join('.')}`);
    const compiled = await runProcess(
      join(scratch, 'node_modules', '.bin', 'tsc'),
      ['-p', join(scratch, 'tsconfig.json')],
      {},
    );
    assert.equal(compiled.code, 0, compiled.out);
  });

  test('a deep import is refused: only the entry points are public', () => {
    const probe = join(scratch, 'deep.js');
    writeFileSync(probe, "await import('dataops-temporal/dist/src/api/index.js');\n");
    const run = (() => {
      try {
        execFileSync(process.execPath, [probe], { cwd: scratch, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        return '';
      } catch (err) {
        return String((err as { stderr?: string }).stderr);
      }
    })();
    assert.match(run, /ERR_PACKAGE_PATH_NOT_EXPORTED/);
    const entries = join(scratch, 'entries.js');
    writeFileSync(
      entries,
      "const c = await import('dataops-temporal/client');\nconsole.log(typeof c.startDataops, typeof c.progressQuery);\n",
    );
    assert.equal(
      execFileSync(process.execPath, [entries], { cwd: scratch, encoding: 'utf8' }).trim(),
      'function object',
      'the typed starters and the contract come from dataops-temporal/client',
    );
  });
});
