/**
 * The capacity run's last step: a promotion of a large suite (export, preview, apply, no approval) on the worker that
 * holds every waiting pipeline, with its resident memory sampled throughout. It says whether a heap cap that keeps
 * the waiting pipelines small also leaves room for the largest import the worker will run.
 */
import type { Client } from '@temporalio/client';
import type { PromoteTestDefinitionsResult } from '../../src/contract/index.js';
import { BULK } from '../../test/helpers/bulk-seed.js';
import { f, memoryMiB } from './measure.js';

/** Promotes the bulk seed's source suite into its target on `queue`; `pid` is the worker's process. */
export async function promotionWhileWaiting(client: Client, queue: string, pid: number, size: number): Promise<string> {
  let highest = memoryMiB(pid).rss;
  const sampler = setInterval(() => {
    try {
      highest = Math.max(highest, memoryMiB(pid).rss);
    } catch {
      // The worker is gone: the promotion's outcome says so.
    }
  }, 100);
  const started = performance.now();
  let outcome: string;
  try {
    const handle = await client.workflow.start('dataops.promoteTestDefinitions', {
      taskQueue: queue,
      workflowId: `cap-promotion-${Date.now()}`,
      args: [
        {
          source: { testSuiteId: BULK.source },
          targetTestSuiteId: BULK.target,
          preset: 'upsert',
          approval: { required: false },
        },
      ],
    });
    const result = (await handle.result()) as PromoteTestDefinitionsResult;
    const applied = result.applied?.summary;
    outcome =
      `${result.status}: ${result.preview.export.definitions} definitions exported, ` +
      `${applied ? `${applied.created} created and ${applied.updated} updated` : 'nothing applied'}`;
  } catch (err) {
    outcome = `**failed**: ${(err as Error).message}${(err as Error).cause ? ` (${String((err as Error).cause)})` : ''}`;
  } finally {
    clearInterval(sampler);
  }
  return (
    `a promotion of ${size} definitions on that worker while they wait: ${outcome}, ` +
    `in ${f((performance.now() - started) / 1000, 1)} s; worker RSS at most ${f(highest, 0)} MiB during it`
  );
}
