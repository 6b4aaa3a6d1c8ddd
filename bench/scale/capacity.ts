/**
 * The capacity run of the scale benchmark: many pipelines waiting (deferrable, 30 s polls) on one fresh worker, and
 * its resident memory per waiting workflow; then, optionally, a large promotion on that same worker (promotion.ts).
 */
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../../src/config/worker.js';
import type { World } from '../../test/helpers/matrix-world.js';
import { eventually } from '../../test/helpers/wait.js';
import type { Target } from './loop.js';
import { f, memoryMiB } from './measure.js';
import { registerSearchAttributes, startPipelines } from './pipelines.js';
import { promotionWhileWaiting } from './promotion.js';

/**
 * Holds `targets.length` pipelines waiting on one fresh worker; reads its memory per waiting workflow. Then promotes
 * `promotion` definitions on it (none when 0), and checks the pipelines still wait.
 */
export async function capacityRun(
  w: World,
  targets: Target[],
  env: Record<string, string>,
  capacityCache: number | undefined,
  extra: Record<string, unknown>,
  promotion = 0,
): Promise<string> {
  await w.controls.jobDurations({ pendingMs: 0, claimMs: 100, runMs: 6 * 3_600_000 });
  const queue = 'capacity';
  // The worker's own default cache, unless --capacity-cache sets one.
  const cache = capacityCache ?? DEFAULT_MAX_CACHED_WORKFLOWS;
  const worker = w.startWorker(queue, { ...env, DATAOPS_MAX_CACHED_WORKFLOWS: String(cache) });
  const pid = worker.child.pid!;
  const searchAttributes = await registerSearchAttributes(w.client, env);
  const opts = { pollIntervalMs: 30_000, waitStrategy: 'deferrable' as const, extra, searchAttributes };
  // One pipeline first, so the baseline includes the loaded workflow bundle and a logged-in client.
  const [warm] = await startPipelines(w.client, queue, 'cap-warm', targets.slice(0, 1), opts);
  const alive = async () => {
    const d = await w.client.workflow.getHandle(warm!.workflowId, warm!.runId).describe();
    if (d.status.name !== 'RUNNING') throw new Error(`the first capacity pipeline ended ${d.status.name}`);
  };
  const ours = new Set(targets.map((t) => t.tableGroupId));
  const running = async () =>
    (await w.controls.jobs()).filter(
      (j) => j.job_key === 'run-profile' && j.status === 'running' && ours.has(j.table_group_id),
    ).length;
  await eventually('the first pipeline to wait', async () => (await alive(), await running()) >= 1, {
    tries: 600,
    delayMs: 500,
  });
  await new Promise((r) => setTimeout(r, 3_000));
  const before = memoryMiB(pid).rss;
  const others = targets.slice(1);
  const started = performance.now();
  await startPipelines(w.client, queue, 'cap', others, opts);
  await eventually('every pipeline to wait', async () => (await running()) >= targets.length, {
    tries: 3_600,
    delayMs: 1_000,
  });
  await new Promise((r) => setTimeout(r, 10_000));
  const after = memoryMiB(pid);
  const reached = (performance.now() - started) / 1000;
  const promoted = promotion > 0 ? await promotionWhileWaiting(w.client, queue, pid, promotion) : undefined;
  if (promoted) await alive();
  const peak = memoryMiB(pid).peak;
  await worker.stop('SIGKILL');
  const perWorkflow = ((after.rss - before) * 1024) / others.length;
  return (
    `capacity: ${targets.length} pipelines waiting (deferrable, 30 s polls) on one worker, ` +
    `${cache >= targets.length ? 'all in its cache' : `at most ${cache} in its cache`}, ` +
    `reached in ${f(reached, 0)} s: worker RSS ${f(before, 0)} → ${f(after.rss, 0)} MiB ` +
    `(peak ${f(after.peak, 0)} MiB), **${f(perWorkflow, 0)} KiB per waiting workflow**` +
    (promoted ? `; then ${promoted}; worker peak over the whole run ${f(peak, 0)} MiB` : '')
  );
}
