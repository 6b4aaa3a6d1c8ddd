/**
 * The typed starters of `dataops-temporal/client`: an input that breaks the contract is refused before anything
 * starts, naming every problem; a valid one runs on a real worker and answers the workflow's typed result.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@temporalio/client';
import { InvalidWorkflowInput, executeDataops, progressQuery, startDataops } from '../../src/client/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { devServerAndSimulator } from '../helpers/dev-and-sim.js';

describe('the typed starters', () => {
  const s = devServerAndSimulator();

  test('a wrong input is refused before anything starts, naming each problem', async () => {
    let started = 0;
    const client = {
      workflow: {
        start: () => {
          started++;
          return Promise.resolve({});
        },
      },
    } as unknown as Client;
    const err = await startDataops(
      client,
      'dataQualityPipeline',
      { tableGroupId: SEED_IDS.tableGroups.sales, pollIntervalMs: -1 } as never,
      {
        workflowId: 'never',
      },
    ).catch((e: unknown) => e);
    assert.ok(err instanceof InvalidWorkflowInput, String(err));
    assert.equal(err.workflow, 'dataQualityPipeline');
    assert.ok(
      err.problems.some((p) => p.startsWith('testSuiteId:')),
      err.message,
    );
    assert.ok(
      err.problems.some((p) => p.startsWith('pollIntervalMs:')),
      err.message,
    );
    assert.equal(started, 0, 'nothing started');
  });

  test('a valid input runs on the worker and answers the typed result', async () => {
    await withProjectWorker(s.d.env, await simDeps(s.sim), async (taskQueue) => {
      const input = { tableGroupId: SEED_IDS.tableGroups.finance, pollIntervalMs: 100, maxPollIntervalMs: 200 };
      const handle = await startDataops(s.d.env.client, 'profileTableGroup', input, {
        workflowId: `typed-${taskQueue}`,
        taskQueue,
      });
      const result = await handle.result();
      assert.equal(result.job.wait.job.status, 'completed');
      assert.equal((await handle.query(progressQuery)).jobs[0]?.jobId, result.job.jobId);
      const again = await executeDataops(s.d.env.client, 'profileTableGroup', input, {
        workflowId: `typed-again-${taskQueue}`,
        taskQueue,
      });
      assert.notEqual(again.job.jobId, result.job.jobId);
    });
  });
});
