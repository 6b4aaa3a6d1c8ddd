import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { localServersConfig } from '../../src/config/local-servers.js';
import { resolveCallerCli } from '../../src/local/temporal-servers.js';
import type { DataQualityPipelineResult } from '../../src/contract/index.js';
import { SEED_IDS, SEED_USERS } from '../../src/simulator/index.js';
import {
  dist,
  freePort,
  runProcess,
  simControls,
  startSimulatorProcess,
  startWorkerProcess,
  type Proc,
  simulatorService,
} from '../helpers/processes.js';
import { startDevServerEnv, uniqueTaskQueue, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;

describe('end to end: separate processes on the dev server', () => {
  let t: TestEnv;
  let sim: { proc: Proc; url: string };
  let address: string;
  let temporalToml: string;
  const workers: Proc[] = [];
  // The worker processes connect through a profile of temporal.toml, as every Temporal SDK and the CLI read it.
  const workerEnv = (taskQueue: string) => ({
    TEMPORAL_CONFIG_FILE: temporalToml,
    TEMPORAL_PROFILE: 'e2e',
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...simulatorService(sim.url),
    DATAOPS_BLOB_DIR: mkdtempSync(join(tmpdir(), 'e2e-blobs-')),
  });
  const simControl = simControls(() => sim.url);

  /**
   * Where a run that does not move is stuck, for a failure message: who polls its task queue for workflow tasks,
   * whether the simulator answers, and the last of what each worker printed.
   */
  async function whereStuck(taskQueue: string, procs: Proc[]): Promise<string> {
    const pollers = await t.env.client.workflowService
      .describeTaskQueue({ namespace: t.env.namespace ?? 'default', taskQueue: { name: taskQueue }, taskQueueType: 1 })
      .then(
        (r) => (r.pollers ?? []).map((p) => p.identity).join(', ') || 'none',
        (e: Error) => `unknown (${e.message})`,
      );
    const simulator = await fetch(`${sim.url}/_sim/counters`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => `answers ${r.status}`,
      (e: Error) => `does not answer (${e.message})`,
    );
    const tails = procs.map(
      (p, i) =>
        `--- worker ${i + 1} (pid ${p.child.pid}, ${p.child.exitCode ?? p.child.signalCode ?? 'running'}), its last output:\n` +
        p.output().slice(-3_000),
    );
    return [`workflow-task pollers of ${taskQueue}: ${pollers}`, `the simulator: ${simulator}`, ...tails].join('\n');
  }

  before(async () => {
    t = await startDevServerEnv();
    address = t.env.connection.options.address;
    temporalToml = join(mkdtempSync(join(tmpdir(), 'e2e-temporal-')), 'temporal.toml');
    writeFileSync(
      temporalToml,
      `[profile.default]\naddress = "localhost:1"\n\n[profile.e2e]\naddress = "${address}"\n`,
    );
    sim = await startSimulatorProcess();
    await simControl('PUT', '/_sim/job-durations', { pendingMs: 300, claimMs: 100, runMs: 1_000, cancelMs: 200 });
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await sim?.proc.stop();
    await t?.env.teardown();
  });

  test('a worker process, the simulator process and the starter CLI run a pipeline to the end', async () => {
    const taskQueue = uniqueTaskQueue('e2e');
    const metricsPort = await freePort();
    const worker = startWorkerProcess({
      ...workerEnv(taskQueue),
      METRICS_PROMETHEUS_ADDRESS: `127.0.0.1:${metricsPort}`,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'DEBUG',
    });
    workers.push(worker);
    const run = await runProcess(
      process.execPath,
      [
        dist('starter.js'),
        'pipeline',
        '--table-group',
        TG.finance,
        '--test-suite',
        TS.financeProd,
        '--max-failed',
        '5',
        '--poll-interval',
        '200ms',
        '--follow',
        '--json',
      ],
      { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue },
      // Stopped before the test's own time limit, so that a run that hangs says where.
      240_000,
    );
    if (run.code !== 0) assert.fail(`exit ${run.code}: ${run.out}\n${await whereStuck(taskQueue, [worker])}`);
    const json = run.out.slice(run.out.indexOf('{\n'));
    const result = JSON.parse(json) as DataQualityPipelineResult;
    assert.equal(result.status, 'passed');
    assert.deepEqual(result.testRun.summary.resultCounts, {
      passed: 1,
      failed: 1,
      warning: 0,
      error: 1,
      log: 0,
      dismissed: 1,
    });
    // Which stages a line catches depends on timing (a 1 s job can start and end between two lines); that each is a
    // plain line does not.
    assert.match(run.out, /^\[\s*\d+ s\] \S.* · polls \d+/m, 'plain progress lines when not a TTY');
    assert.ok(!run.out.includes('\r') && !run.out.includes('\u001b['), 'no terminal control when not a TTY');
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(
      metrics,
      /temporal_activity_execution_latency|temporal_workflow_completed/,
      'Prometheus metrics are served',
    );
    const logLine = worker
      .output()
      .split('\n')
      .find((l) => l.includes('"worker configuration"'));
    assert.ok(logLine && JSON.parse(logLine).level === 'INFO', 'LOG_FORMAT=json writes one JSON object per line');
    // The waits queue's worker runs activities only: the SDK's warning about it is kept for DEBUG.
    const noWorkflows = worker
      .output()
      .split('\n')
      .filter((l) => l.includes('No workflows registered'))
      .map((l) => JSON.parse(l) as { level: string; taskQueue: string });
    assert.deepEqual(noWorkflows, [{ ...noWorkflows[0], level: 'DEBUG', taskQueue: `${taskQueue}-waits` }]);
    assert.equal(await worker.stop('SIGTERM'), 0, 'graceful shutdown on SIGTERM');
    // Every line, Core's own logs included (forwarded, not Rust's console format), is one JSON object.
    const lines = worker
      .output()
      .split('\n')
      .filter((l) => l.trim() !== '');
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    assert.deepEqual(notJson, [], 'lines that are not JSON');
    assert.ok(
      lines.some((l) => (JSON.parse(l) as { sdkComponent?: string }).sdkComponent === 'core'),
      "Core's logs come through the same logger",
    );
    assert.match(worker.output(), /worker configuration/);
    assert.ok(!worker.output().includes(SEED_USERS.admin.password), 'the password is never logged');
  });

  test('two workers on one task queue, the one waiting on the job killed with SIGKILL: the pipeline completes, one submission', async () => {
    const taskQueue = uniqueTaskQueue('kill');
    const a = startWorkerProcess(workerEnv(taskQueue));
    const b = startWorkerProcess(workerEnv(taskQueue));
    workers.push(a, b);
    await simControl('PUT', '/_sim/job-durations', { runMs: 15_000 });
    const before = (await simControl('GET', '/_sim/counters')).submissions[TG.finance] ?? 0;
    try {
      const handle = await t.env.client.workflow.start('dataops.dataQualityPipeline', {
        taskQueue,
        workflowId: `kill-${taskQueue}`,
        args: [
          {
            tableGroupId: TG.finance,
            testSuiteId: TS.financeProd,
            onGateFailure: 'report',
            testGeneration: 'skip',
            pollIntervalMs: 300,
            maxPollIntervalMs: 500,
            heartbeatTimeoutMs: 3_000,
          },
        ],
      });
      const waiting = await eventually('the profiling wait to run on a worker', async () => {
        const d = await handle.describe();
        return d.raw.pendingActivities?.find(
          (p) => p.activityType?.name === 'dataops.waitForJob' && p.lastWorkerIdentity,
        );
      }).catch(async (err: Error) => assert.fail(`${err.message}\n${await whereStuck(taskQueue, [a, b])}`));
      const pid = Number(waiting.lastWorkerIdentity!.split('@')[0]);
      const victim = [a, b].find((w) => w.child.pid === pid);
      assert.ok(victim, `the waiting worker ${waiting.lastWorkerIdentity} is one of ours`);
      await victim.stop('SIGKILL');
      await simControl('PUT', '/_sim/job-durations', { runMs: 1_000 });
      const result = (await handle.result()) as DataQualityPipelineResult;
      assert.equal(result.testRun.job.wait.job.status, 'completed');
      const counters = await simControl('GET', '/_sim/counters');
      assert.equal(counters.submissions[TG.finance] - before, 1, 'the profiling run was submitted once');
      const survivor = [a, b].find((w) => w !== victim)!;
      assert.match(survivor.output(), /job status changed/, 'the other worker carried on');
    } finally {
      await simControl('PUT', '/_sim/job-durations', { runMs: 1_000 });
    }
  });

  test('the Temporal CLI as an outside caller starts dataops.dataQualityPipeline by name', async () => {
    const taskQueue = uniqueTaskQueue('outside');
    workers.push(startWorkerProcess(workerEnv(taskQueue)));
    const temporal = resolveCallerCli(localServersConfig());
    const workflowId = `outside-${taskQueue}`;
    const input = JSON.stringify({
      tableGroupId: TG.sales,
      testSuiteId: TS.salesProd,
      gates: { minScorePercent: 90 },
      pollIntervalMs: 200,
    });
    const started = await runProcess(
      temporal,
      [
        'workflow',
        'start',
        '--address',
        address,
        '--task-queue',
        taskQueue,
        '--type',
        'dataops.dataQualityPipeline',
        '--workflow-id',
        workflowId,
        '--input',
        input,
      ],
      {},
    );
    assert.equal(started.code, 0, started.out);
    const result = (await t.env.client.workflow.getHandle(workflowId).result()) as DataQualityPipelineResult;
    assert.equal(result.status, 'passed');
    assert.equal(result.generation?.wait.job.status, 'completed');
    const shown = await runProcess(process.execPath, [dist('starter.js'), 'status', workflowId], {
      TEMPORAL_ADDRESS: address,
    });
    assert.equal(shown.code, 0);
    assert.match(shown.out, /status\s+COMPLETED/);
  });

  test('a schedule created with the CLI fires on the dev server; its run completes; the schedule is deleted', async () => {
    const taskQueue = uniqueTaskQueue('sched');
    workers.push(startWorkerProcess(workerEnv(taskQueue)));
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue };
    const scheduleId = `nightly-${taskQueue}`;
    const created = await runProcess(
      process.execPath,
      [
        dist('starter.js'),
        'schedule',
        'create',
        scheduleId,
        '--every',
        '2s',
        '--overlap',
        'skip',
        '--note',
        'e2e',
        '--catchup-window',
        '1m',
        '--table-group',
        TG.finance,
        '--test-suite',
        TS.financeProd,
        '--on-gate-failure',
        'report',
        '--test-generation',
        'skip',
        '--poll-interval',
        '200ms',
      ],
      env,
    );
    assert.equal(created.code, 0, created.out);
    try {
      // A cron expression the server refuses is a usage error that names the flag (exit 2), and so is a taken id.
      const pipelineFlags = ['--table-group', TG.finance, '--test-suite', TS.financeProd];
      const garbage = await runProcess(
        process.execPath,
        [dist('starter.js'), 'schedule', 'create', `${scheduleId}-bad`, '--cron', 'garbage', ...pipelineFlags],
        env,
      );
      assert.equal(garbage.code, 2, garbage.out);
      assert.match(garbage.out, /error: --cron: the Temporal server refused it: .+/);
      const taken = await runProcess(
        process.execPath,
        [dist('starter.js'), 'schedule', 'create', scheduleId, '--every', '1h', ...pipelineFlags],
        env,
      );
      assert.equal(taken.code, 2, taken.out);
      assert.match(taken.out, new RegExp(`error: schedule ${scheduleId} already exists`));
      const listed = await runProcess(process.execPath, [dist('starter.js'), 'schedule', 'list', '--json'], env);
      assert.ok(
        (JSON.parse(listed.out) as { scheduleId: string; note: string }[]).some(
          (s) => s.scheduleId === scheduleId && s.note === 'e2e',
        ),
      );
      const run = await eventually(
        'the schedule to fire',
        async () =>
          (await t.env.client.schedule.getHandle(scheduleId).describe()).info.recentActions[0]?.action.workflow,
        { tries: 400, delayMs: 250 },
      );
      const paused = await runProcess(
        process.execPath,
        [dist('starter.js'), 'schedule', 'pause', scheduleId, '--note', 'enough'],
        env,
      );
      assert.equal(paused.code, 0);
      const result = (await t.env.client.workflow
        .getHandle(run.workflowId, run.firstExecutionRunId)
        .result()) as DataQualityPipelineResult;
      assert.equal(result.testRun.summary.status, 'completed');
      const described = await runProcess(
        process.execPath,
        [dist('starter.js'), 'schedule', 'describe', scheduleId, '--json'],
        env,
      );
      assert.equal((JSON.parse(described.out) as { paused: boolean }).paused, true);
      const shown = await runProcess(process.execPath, [dist('starter.js'), 'schedule', 'describe', scheduleId], env);
      assert.match(shown.out, /^state\s+paused$/m, 'without --json, describe prints a readable table');
      const status = await runProcess(process.execPath, [dist('starter.js'), 'status', run.workflowId, '--json'], env);
      assert.equal(
        (JSON.parse(status.out) as { type: string }).type,
        'dataops.dataQualityPipeline',
        'a scheduled run is an ordinary pipeline',
      );
    } finally {
      const deleted = await runProcess(process.execPath, [dist('starter.js'), 'schedule', 'delete', scheduleId], env);
      assert.equal(deleted.code, 0, deleted.out);
    }
  });
});
