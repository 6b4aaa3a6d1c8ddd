/**
 * A send leaves within LEAVES_WITHIN_MS of its stamp, or not at all. A batch attempt that stalls after recording a
 * send (a frozen worker) is retried once its heartbeat times out; the retry finds the record and looks until the
 * stamp plus that bound plus the settle window, then sends if nothing was created. Were the stalled attempt to send
 * when it woke, after that, the target would have two jobs. Each of the three writes (a job, an order, an apply) is
 * driven here as its batch drives it, against the simulator over a real socket; the clock jumps past the bound while
 * its record is made (what a stall looks like from inside the process): nothing reaches the service, and the refusal
 * is recorded, so the batch's next attempt sends at once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { activityFunctions, type ActivityDeps } from '../../src/activities/index.js';
import { importWrites } from '../../src/activities/apply.js';
import { activityContext } from '../../src/activities/context.js';
import { orderWrite } from '../../src/activities/orders.js';
import { submissionWrites, type Phase, type SendFor } from '../../src/exactly-once/index.js';
import { LEAVES_WITHIN_MS } from '../../src/exactly-once/write-once.js';
import { SEED_IDS, type RunningSimulator } from '../../src/simulator/index.js';
import { simDeps } from '../helpers/activities.js';
import { batchEnvironment, run, runIn } from '../helpers/mock-activity.js';
import { startTestSimulator } from '../helpers/sim.js';

let sim: RunningSimulator;
let deps: ActivityDeps;
before(async () => {
  ({ sim } = await startTestSimulator());
  deps = await simDeps(sim);
});
after(async () => sim?.close());

/** The writes that reached the service: every request but reads and logins. */
const writes = () => sim.controls.requests().filter((r) => r.method !== 'GET' && !r.path.endsWith('/login'));

/**
 * Sends `input` with `send` as a first batch attempt whose record of the send takes longer than the bound (the clock
 * jumps while it is made); returns what it threw and the phases it recorded.
 */
async function stalledAfterRecord(send: SendFor, input: Record<string, unknown>) {
  const realNow = Date.now;
  const phases: Phase<unknown>[] = [];
  const writesBefore = writes().length;
  try {
    const err = await runIn(batchEnvironment(), () =>
      send(input, {
        prior: { mayHaveSent: false },
        record: async (phase) => {
          phases.push(phase);
          if (phase.phase === 'sending') Date.now = () => realNow() + LEAVES_WITHIN_MS + 1_000;
        },
      }).then(
        () => assert.fail('it was sent'),
        (e: unknown) => e,
      ),
    );
    return { err, phases, sent: writes().length - writesBefore };
  } finally {
    Date.now = realNow;
  }
}

function assertUnsentAndRefused(r: Awaited<ReturnType<typeof stalledAfterRecord>>): void {
  assert.equal(r.sent, 0, 'nothing reached the service');
  assert.ok(r.err instanceof ApplicationFailure, String(r.err));
  assert.equal(r.err.type, 'NotSentInTime');
  assert.equal(r.err.nonRetryable, false, 'retried: the next attempt sends it');
  assert.deepEqual(
    r.phases.map((p) => p.phase),
    ['sending', 'rejected'],
    'the refusal is recorded after the send, so the next attempt sends at once, with no lookup',
  );
}

test('a job submission whose record outlasted the bound is not sent', async () => {
  const send = submissionWrites(activityContext(deps)).submitProfilingRun.send;
  assertUnsentAndRefused(
    await stalledAfterRecord(send, { profile: 'default', targetId: SEED_IDS.tableGroups.finance }),
  );
});

test('an order whose record outlasted the bound is not sent', async () => {
  const input = { kitchen: 'production', recipe: 'load-warehouse', variation: 'backfill', parameters: {} };
  assertUnsentAndRefused(await stalledAfterRecord(orderWrite(activityContext(deps)).send, input));
});

test('an apply whose record outlasted the bound is not sent', async () => {
  const TS = SEED_IDS.testSuites;
  const exported = await run(activityFunctions(deps).exportTestDefinitions, {
    testSuiteId: TS.salesDev,
    filters: { origin: 'both' },
  });
  const config = { mode: 'apply', on_match: 'overwrite_unlocked', on_new: 'create', on_absence: 'do_nothing' };
  const input = { testSuiteId: TS.salesProd, config, file: exported.file };
  const before = sim.controls.definitions(TS.salesProd).length;
  const r = await stalledAfterRecord(importWrites(activityContext(deps)).applySender, input);
  // Its preview (the mark) is a POST too, made before the record: only the apply itself must not leave.
  assert.equal(r.sent, 1, 'only the preview reached the service');
  assert.equal(sim.controls.definitions(TS.salesProd).length, before, 'nothing applied');
  assertUnsentAndRefused({ ...r, sent: 0 });
});
