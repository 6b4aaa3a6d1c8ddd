#!/usr/bin/env node
/**
 * The main job on the embedded default (`npm start`): no account, no configuration. Starts the installed Temporal dev
 * server (with its Web UI), the simulator with its seed project and a worker; runs a data-quality pipeline with live
 * progress and prints its summary and gate verdict; previews a promotion between two seed suites, prints the diff,
 * approves and applies it; then shuts everything down and removes its working directory (or stays up with --keep).
 * `--lineage FILE` appends the run's OpenLineage events to FILE.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime } from '@temporalio/worker';
import { EXIT, formatPromotion } from './cli/format.js';
import { localServersConfig } from './config/local-servers.js';
import { loadWorkerConfig } from './config/worker.js';
import { waitsTaskQueue } from './contract/activity-options.js';
import { previewQuery, type PromoteTestDefinitionsResult } from './contract/index.js';
import { resolveDevServer } from './local/temporal-servers.js';
import { SEED_IDS, SEED_USERS, startSimulator } from './simulator/index.js';
import { runCli } from './starter.js';
import { createWorker } from './worker.js';
import { WorkerLogger } from './telemetry/worker-logger.js';
import { isEntryPoint } from './local/entry-point.js';
import { freePort } from './local/free-ports.js';

const TASK_QUEUE = 'dataops-demo';

export async function runDemo(
  options: {
    keep?: boolean;
    out?: NodeJS.WriteStream;
    /** A file the run's OpenLineage events are appended to, one JSON line each (`--lineage FILE`). */
    lineage?: string;
  } = {},
): Promise<number> {
  const out = options.out ?? process.stdout;
  const say = (line = '') => out.write(`${line}\n`);
  Runtime.install({ logger: new WorkerLogger('WARN', waitsTaskQueue(TASK_QUEUE)) });

  const server = resolveDevServer(localServersConfig());
  const uiPort = await freePort();
  say(
    `starting the Temporal dev server (${server.source === 'sdk-download' ? 'downloaded by the SDK' : server.path}) ...`,
  );
  // The dev server's own warnings (a generated cluster id at every start) are not the newcomer's concern: errors only.
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: server.executable, ui: true, uiPort, log: { format: 'pretty', level: 'error' } },
  });
  const sim = await startSimulator({
    port: 0,
    controls: true,
    jobDurations: { pendingMs: 1_500, claimMs: 500, runMs: 4_000, cancelMs: 500, interruptMs: 500 },
    orderDurations: { plannedMs: 500, runMs: 2_000 },
  });
  const address = env.connection.options.address;
  const uiUrl = `http://localhost:${uiPort}`;
  say(`Temporal: ${address}   Web UI: ${uiUrl}   simulator: ${sim.url}`);

  const work = mkdtempSync(join(tmpdir(), 'dataops-demo-'));
  const config = loadWorkerConfig({
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    DATAOPS_BASE_URL: sim.url,
    DATAOPS_USERNAME: SEED_USERS.admin.username,
    DATAOPS_PASSWORD: SEED_USERS.admin.password,
    DATAOPS_PROJECT_CODE: 'DEMO',
    // The demo's own simulator: nothing else writes to it.
    DATAOPS_SOLE_WRITER: 'true',
    DATAOPS_BLOB_DIR: join(work, 'blobs'),
    DATAOPS_EXPORT_DIR: join(work, 'exports'),
    DATAOPS_HEARTBEAT_THROTTLE_MS: '1000',
    ...(options.lineage ? { DATAOPS_LINEAGE: 'file', DATAOPS_LINEAGE_FILE: resolve(options.lineage) } : {}),
  });
  const { worker, deps } = await createWorker(config, env.nativeConnection);
  const cliEnv = { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: TASK_QUEUE, DATAOPS_TEMPORAL_UI_URL: uiUrl };
  const cli = (args: string[]) => runCli(args, { out, err: process.stderr, env: cliEnv });

  let code: number = EXIT.ok;
  try {
    await worker.runUntil(async () => {
      say('\n== 1. data-quality pipeline: order → profile → test generation → test run → quality gates ==');
      const pipeline = await cli([
        'pipeline',
        '--order',
        'production/load-warehouse/daily',
        '--param',
        'source_data_date=2026-11-20',
        '--table-group',
        SEED_IDS.tableGroups.sales,
        '--test-suite',
        SEED_IDS.testSuites.salesProd,
        '--min-score-percent',
        '90',
        '--max-failed',
        '0',
        '--poll-interval',
        '500ms',
        '--follow',
      ]);
      say(`pipeline exit code: ${pipeline}`);

      say('\n== 2. promotion preview: sales-dev → sales-prod (preset "promotion") ==');
      const workflowId = `demo-promotion-${Date.now()}`;
      const started = await cli([
        'promote',
        '--from-suite',
        SEED_IDS.testSuites.salesDev,
        '--to-suite',
        SEED_IDS.testSuites.salesProd,
        '--preset',
        'promotion',
        '--workflow-id',
        workflowId,
      ]);
      const handle = env.client.workflow.getHandle(workflowId);
      const preview = await handle.query(previewQuery);
      if (started !== EXIT.ok || !preview) throw new Error('the promotion did not produce a preview');

      say('\n== 3. approve the preview and apply it ==');
      const approved = await cli(['approve', workflowId, '--preview-id', preview.previewId, '--by', 'demo']);
      const result = (await handle.result()) as PromoteTestDefinitionsResult;
      say(formatPromotion(result));
      code = pipeline === EXIT.ok && approved === EXIT.ok && result.status === 'applied' ? EXIT.ok : EXIT.failed;
      say(`\nWeb UI: ${uiUrl}/namespaces/default/workflows`);
      if (options.keep) {
        // The CLI finds this worker only on the demo's own task queue: without it, a run would wait on the default one.
        say('--keep: everything stays up; press Ctrl+C to stop. The CLI reaches it from another shell with:');
        say(
          `  export ${Object.entries(cliEnv)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
        );
        say(
          `  npm run cli -- pipeline --table-group ${SEED_IDS.tableGroups.sales} --test-suite ${SEED_IDS.testSuites.salesProd} --poll-interval 1s --follow`,
        );
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
      }
    });
  } finally {
    await deps.close(); // sends the lineage events still queued
    await sim.close();
    await env.teardown();
    rmSync(work, { recursive: true, force: true }); // the claim checks and exports of this run only
    say('stopped the worker, the simulator and the dev server');
  }
  if (options.lineage) say(`OpenLineage events of this run: appended to ${resolve(options.lineage)}`);
  return code;
}

if (isEntryPoint(import.meta.url)) {
  let values: { keep?: boolean; lineage?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { keep: { type: 'boolean' }, lineage: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    console.error(`npm start: ${(err as Error).message} (npm start -- --help)`);
    process.exit(EXIT.usage);
  }
  if (values.help) {
    console.log(
      [
        'usage: npm start [-- --keep] [-- --lineage FILE]   (runs the demo on a local dev server and the simulator)',
        '  --keep           leave everything up (Ctrl+C stops it) and print how the CLI reaches it',
        "  --lineage FILE   append the run's OpenLineage events to FILE, one JSON line each",
      ].join('\n'),
    );
    process.exit(0);
  }
  runDemo({ keep: Boolean(values.keep), ...(values.lineage ? { lineage: values.lineage } : {}) }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
