/**
 * Records real histories of every workflow as replay fixtures: `npm run record-histories`. Every workflow is pinned
 * to the Worker Deployment Version that started it (docs/design/versioning.md), so a change to workflow code ships as a new
 * build id and the fixtures are recorded again with it; the replay test checks that the code of one version replays
 * the histories it wrote (nothing in it may depend on what a replay cannot see). `-- --only=<name>` records that one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import { approveUpdate, previewQuery } from '../../src/contract/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { startTestSimulator } from '../helpers/sim.js';
import { startTimeSkippingEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const only = /^--only=(.*)$/.exec(process.argv.find((a) => a.startsWith('--only=')) ?? '')?.[1];
const out = fileURLToPath(new URL('../../../test/fixtures/histories/', import.meta.url));
const TG = SEED_IDS.tableGroups;
const TS = SEED_IDS.testSuites;
const poll = { pollIntervalMs: 100, maxPollIntervalMs: 100 };

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const t = await startTimeSkippingEnv();
  const { sim } = await startTestSimulator({
    jobDurations: { pendingMs: 100, claimMs: 50, runMs: 200, cancelMs: 100, interruptMs: 100 },
    orderDurations: { plannedMs: 50, runMs: 100 },
  });
  const deps = await simDeps(sim);
  const runs: [string, string, unknown, ((id: string) => Promise<void>)?][] = [
    [
      'runOrder',
      'dataops.runOrder',
      {
        kitchen: 'production',
        recipe: 'load-warehouse',
        variation: 'daily',
        wait: true,
        overrides: { sourceDataDate: { source_data_date: '2026-11-01' } },
      },
    ],
    ['profileTableGroup', 'dataops.profileTableGroup', { tableGroupId: TG.finance, ...poll }],
    [
      'runTestSuite-deferrable',
      'dataops.runTestSuite',
      { testSuiteId: TS.financeProd, waitStrategy: 'deferrable', ...poll },
    ],
    [
      'dataQualityPipeline',
      'dataops.dataQualityPipeline',
      {
        order: { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily' },
        tableGroupId: TG.sales,
        testSuiteId: TS.salesProd,
        gates: { minScorePercent: 90 },
        ...poll,
      },
    ],
    [
      'promoteTestDefinitions',
      'dataops.promoteTestDefinitions',
      { source: { testSuiteId: TS.salesDev }, targetTestSuiteId: TS.salesProd, preset: 'promotion' },
      async (workflowId) => {
        const handle = t.env.client.workflow.getHandle(workflowId);
        const preview = await eventually('the preview', () => handle.query(previewQuery));
        await handle.executeUpdate(approveUpdate, { args: [{ previewId: preview.previewId, by: 'fixture' }] });
      },
    ],
    [
      'exportTestDefinitions',
      'dataops.exportTestDefinitions',
      { testSuiteId: TS.salesProd, destination: 'fixture/sales-prod.json' },
    ],
    [
      'profileTableGroup-cancelled',
      'dataops.profileTableGroup',
      { tableGroupId: TG.finance, ...poll },
      async (workflowId) => {
        sim.controls.setJobDurations({ runMs: 3_600_000 });
        await eventually('running', () =>
          sim.controls
            .jobs()
            .some((j) => j.job_key === 'run-profile' && j.status === 'running' && j.durations.runMs === 3_600_000),
        );
        await t.env.client.workflow.getHandle(workflowId).cancel();
      },
    ],
    [
      'runOrder-cancelled',
      'dataops.runOrder',
      { kitchen: 'production', recipe: 'load-warehouse', variation: 'daily', wait: true, pollIntervalMs: 100 },
      async (workflowId) => {
        sim.controls.setOrderDurations({ runMs: 3_600_000 });
        const handle = t.env.client.workflow.getHandle(workflowId);
        // The earlier orders ran 100 ms: the one going is this workflow's.
        await eventually('its run going', () =>
          sim.controls.orders().some((o) => o.servings[0]?.status === 'ACTIVE_SERVING'),
        );
        await handle.cancel();
        sim.controls.setOrderDurations({ runMs: 100 });
      },
    ],
  ];
  for (const [name, type, input, during] of runs) {
    if (only && name !== only) continue;
    await withProjectWorker(t.env, deps, async (taskQueue) => {
      const workflowId = `fixture-${name}`;
      const handle = await t.env.client.workflow.start(type, {
        taskQueue,
        workflowId: `${workflowId}-${taskQueue}`,
        args: [input],
      });
      await during?.(handle.workflowId);
      await handle.result().catch(() => undefined);
      sim.controls.setJobDurations({ runMs: 200 });
      const history = await handle.fetchHistory();
      writeFileSync(`${out}${name}.json`, historyToJSON(proto.temporal.api.history.v1.History.fromObject(history)));
      console.log(`recorded ${name}: ${history.events?.length} events`);
    });
  }
  await sim.close();
  await t.env.teardown();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
