import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { sleepThenStamp } from '../fixtures/workflows/proof.js';
import { startTimeSkippingEnv, withWorker, type TestEnv } from '../helpers/temporal.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/workflows/proof.js', import.meta.url));
const HOUR_MS = 3_600_000;

describe('time-skipping test server', () => {
  let t: TestEnv;
  before(async () => {
    t = await startTimeSkippingEnv();
  });
  after(async () => {
    await t?.env.teardown();
  });

  test('a workflow that sleeps 5 hours then runs an activity completes, with its clock moved by 5 hours', async (ctx) => {
    ctx.diagnostic(`test server source: ${t.server.source} ${t.server.path ?? ''}`);
    assert.equal(t.env.supportsTimeSkipping, true);
    const stamped: string[] = [];
    const realStart = performance.now();
    const result = await withWorker(
      t.env,
      {
        workflowsPath,
        activities: {
          stamp: async (label: string) => {
            stamped.push(label);
            return `stamped ${label}`;
          },
        },
      },
      (taskQueue) =>
        t.env.client.workflow.execute<typeof sleepThenStamp>('sleepThenStamp', {
          taskQueue,
          workflowId: `sleep-${taskQueue}`,
          args: [5],
        }),
    );
    const realMs = performance.now() - realStart;
    assert.deepEqual(stamped, ['after 5h']);
    assert.equal(result.stamped, 'stamped after 5h');
    assert.ok(
      result.workflowEndMs - result.workflowStartMs >= 5 * HOUR_MS,
      `workflow clock moved ${result.workflowEndMs - result.workflowStartMs} ms, expected at least 5 h`,
    );
    // Reported, never asserted: wall-clock thresholds make flaky tests on a shared machine.
    ctx.diagnostic(`5 h of workflow time took ${(realMs / 1000).toFixed(2)} s of real time`);
  });
});
