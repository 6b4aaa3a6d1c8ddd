/**
 * What a failing seed leaves to read (`--evidence DIR`): every workflow history of its task queue (the requesters and
 * the submitters they asked), the simulator's record of jobs and orders with the requests that created them, the
 * verdict, and each worker's output. A replay may not fail again (the schedule is fixed, the machine's timing is not),
 * so the run that failed is the one to read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Verdict } from './oracle.js';
import type { SeedRun } from './run-seed.js';

export async function keepEvidence(client: Client, run: SeedRun, verdict: Verdict, dir: string): Promise<string> {
  const out = join(dir, `seed-${run.seed}`);
  mkdirSync(join(out, 'histories'), { recursive: true });
  const json = (name: string, value: unknown) => writeFileSync(join(out, name), JSON.stringify(value, null, 1));
  json('verdict.json', verdict);
  json('jobs.json', run.jobs);
  json('orders.json', run.orders);
  json('ended.json', run.ended);
  run.workerLogs.forEach((log, i) => writeFileSync(join(out, `worker-${i}.log`), log));
  for await (const w of client.workflow.list({ query: `TaskQueue = '${run.queue}'` })) {
    const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    const name = `${w.workflowId}-${w.runId}`.replace(/[^\w.-]/g, '_');
    writeFileSync(join(out, 'histories', `${name}.json`), JSON.stringify(history, null, 1));
  }
  return out;
}
