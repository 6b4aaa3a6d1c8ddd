/**
 * A promotion decided after the command that started it has gone (`--no-wait`, a schedule, another service, a
 * `promote` that gave up waiting): `status` shows its preview and the commands that decide it, `--follow` prints them
 * once per preview, and the printed commands work as they are. Dev server, a simulator of its own (a promotion
 * changes its target suite).
 */
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { after, before, describe, test } from 'node:test';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { SEED_IDS } from '../../src/simulator/index.js';
import type { WorkflowHandle } from '@temporalio/client';
import { follow } from '../../src/cli/follow.js';
import { waitForPreview } from '../../src/cli/query.js';
import { AWAITING_APPROVAL, WORKFLOW_TYPES, previewQuery, progressQuery } from '../../src/contract/index.js';
import { simDeps, withProjectWorker } from '../helpers/activities.js';
import { cli, sink } from '../helpers/cli.js';
import { HELD_CLIENT_TIMEOUT_MS, HOLD_AT_MOST_MS, clientFor, startTestSimulator } from '../helpers/sim.js';
import { startDevServerEnv, type TestEnv } from '../helpers/temporal.js';
import { eventually } from '../helpers/wait.js';

const { salesDev: DEV, salesProd: PROD } = SEED_IDS.testSuites;

/** The `approve:` line printed for `workflowId`, as the arguments of the command it names. */
function approveCommand(out: string, workflowId: string): string[] | undefined {
  const line = new RegExp(`^approve: dataops (approve ${workflowId} --preview-id \\S+)$`, 'm').exec(out)?.[1];
  return line?.split(' ');
}

describe('a promotion decided later, from status and --follow, on the dev server', () => {
  let t: TestEnv;
  let sim: RunningSimulator;
  let env: Record<string, string>;
  before(async () => {
    t = await startDevServerEnv();
    ({ sim } = await startTestSimulator());
    env = { TEMPORAL_ADDRESS: t.env.connection.options.address, DATAOPS_TEMPORAL_UI_URL: '' };
  });
  after(async () => {
    await sim?.close();
    await t?.env.teardown();
  });

  test('status shows the preview waiting for its decision and the commands that make it; --follow prints them once per preview', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const workflowId = await promoteLater(`decide-later-${taskQueue}`, 'promotion', taskQueue);
      const handle = t.env.client.workflow.getHandle(workflowId);
      let followed = '';
      const following = follow(
        handle,
        sink((s) => (followed += s)),
        100,
      );
      try {
        await decide(workflowId, () => followed);
      } finally {
        // A failed assertion leaves it waiting for a decision: end it, so that the follow ends before the server.
        await handle.terminate('test over').catch(() => undefined);
        await following;
      }
    });
  });

  test('a promotion rejected with the command status prints: the decision names the user the CLI ran as; nothing is applied', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const workflowId = await promoteLater(`reject-later-${taskQueue}`, 'upsert', taskQueue);
      const before = sim.controls.definitions(PROD);
      const shown = await eventually('status naming the reject command', async () => {
        const r = await cli(['status', workflowId], env);
        return new RegExp(`^reject:  dataops (reject ${workflowId}) --reason`, 'm').exec(r.out)?.[1];
      });
      const rejected = await cli([...shown.split(' '), '--reason', 'not today'], env);
      assert.equal(rejected.code, 0, rejected.err);
      const waited = await cli(['status', workflowId, '--wait', '--json'], env);
      assert.equal(waited.code, 5, waited.err);
      const { result } = JSON.parse(waited.out) as { result: { status: string; decision: { by: string | null } } };
      assert.equal(result.status, 'rejected');
      assert.equal(result.decision.by, userInfo().username);
      assert.deepEqual(sim.controls.definitions(PROD), before, 'nothing applied');
    });
  });

  test('--follow of a promotion waiting for its decision asks its worker nothing more until something happens', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const workflowId = await promoteLater(`follow-quietly-${taskQueue}`, 'upsert', taskQueue);
      const handle = t.env.client.workflow.getHandle(workflowId);
      await eventually('the promotion waiting for its decision', async () => {
        const p = await handle.query(progressQuery);
        return p.stage === AWAITING_APPROVAL;
      });
      // Each query is a billed action on Temporal Cloud, a describe is not.
      const { counted, asked } = counting(handle);
      /** How many queries of each name the follow asked. */
      const queries = () => {
        const n: Record<string, number> = {};
        for (const q of asked.queries) n[q.name] = (n[q.name] ?? 0) + 1;
        return n;
      };
      let followed = '';
      const following = follow(
        counted,
        sink((s) => (followed += s)),
        50,
      );
      try {
        const command = await eventually('--follow naming the approval', async () =>
          asked.describes >= 40 ? approveCommand(followed, workflowId) : undefined,
        );
        // Forty looks at a history that has not grown: the progress read once, the preview once.
        assert.deepEqual(queries(), { [progressQuery.name]: 1, [previewQuery.name]: 1 });
        assert.equal((await cli(command, env)).code, 0);
        await following;
      } finally {
        await handle.terminate('test over').catch(() => undefined);
        await following;
      }
      // What happened next was read, and shown: the follow ended on the promotion's last stage.
      assert.ok(queries()[progressQuery.name]! > 1);
      assert.match(followed.trimEnd().split('\n').at(-1)!, /\] done · /);
    });
  });

  test("promote's wait for the preview asks the worker once per step of the workflow, not twice a second", async () => {
    // The export's client waits out the hold below (the tests' own timeout is 5 s).
    await withProjectWorker(t.env, await simDeps(sim, { timeoutMs: HELD_CLIENT_TIMEOUT_MS }), async (taskQueue) => {
      // The export held for eight of the wait's looks: the workflow sits in one step, its history unchanged.
      const hold = sim.controls.addFault({
        kind: 'delay',
        delay_ms: HOLD_AT_MOST_MS,
        method: 'GET',
        path: 'test-definition-export',
      });
      const handle = await t.env.client.workflow.start(WORKFLOW_TYPES.promoteTestDefinitions, {
        taskQueue,
        workflowId: `preview-wait-${taskQueue}`,
        args: [{ source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset: 'upsert' }],
      });
      const { counted, asked } = counting(handle);
      // Released after eight looks (or when the wait for them gives up, and the count below fails).
      const released = eventually('eight looks while the export is held', () => asked.describes >= 8)
        .catch(() => undefined)
        .then(() => sim.controls.releaseFault(hold.id));
      try {
        const preview = await waitForPreview(counted, 60_000, taskQueue);
        await released;
        assert.equal(preview?.definitions, 9);
        const at = asked.queries.map((q) => q.historyLength);
        assert.deepEqual(at, [...new Set(at)], 'never asked twice at one history length');
        assert.ok(
          asked.describes >= at.length + 6,
          `${asked.describes} looks, ${at.length} queries: the export's hold`,
        );
      } finally {
        await handle.terminate('test over').catch(() => undefined);
      }
    });
  });

  test('a promotion that ended before the wait saw its preview asks for no decision: its result is shown', async () => {
    await withProjectWorker(t.env, await simDeps(sim), async (taskQueue) => {
      const handle = await t.env.client.workflow.start(WORKFLOW_TYPES.promoteTestDefinitions, {
        taskQueue,
        workflowId: `timed-out-${taskQueue}`,
        args: [
          { source: { testSuiteId: DEV }, targetTestSuiteId: PROD, preset: 'upsert', approval: { timeoutMs: 1_000 } },
        ],
      });
      assert.equal((await handle.result()).status, 'timed_out');
      // Its preview is still there to query: printed, it would ask for an approval that can no longer be made.
      assert.notEqual(await handle.query(previewQuery), null);
      assert.equal(await waitForPreview(handle, 60_000, taskQueue), null);
    });
  });

  /** `handle`, counting its describes and its queries, each with the history length of the describe before it. */
  function counting(handle: WorkflowHandle) {
    const asked = { describes: 0, historyLength: -1, queries: [] as { name: string; historyLength: number }[] };
    const counted: WorkflowHandle = {
      ...handle,
      describe: async () => {
        asked.describes++;
        const d = await handle.describe();
        asked.historyLength = d.historyLength;
        return d;
      },
      query: ((def: { name: string }, ...args: unknown[]) => {
        asked.queries.push({ name: def.name, historyLength: asked.historyLength });
        return handle.query(def as never, ...(args as []));
      }) as WorkflowHandle['query'],
    };
    return { counted, asked };
  }

  /** Starts a promotion of DEV into PROD with `promote --no-wait`, as `workflowId`, and returns its id. */
  async function promoteLater(workflowId: string, preset: string, taskQueue: string): Promise<string> {
    const promote = ['promote', '--from-suite', DEV, '--to-suite', PROD, '--preset', preset, '--no-wait'];
    const started = await cli([...promote, '--workflow-id', workflowId], { ...env, TEMPORAL_TASK_QUEUE: taskQueue });
    assert.equal(started.code, 0, started.err);
    return workflowId;
  }

  /** Decides the promotion `workflowId` from what `status` and the follow (its output so far: `followed`) print. */
  async function decide(workflowId: string, followed: () => string) {
    const first = await eventually('status naming the preview and its approval', async () => {
      const r = await cli(['status', workflowId], env);
      return approveCommand(r.out, workflowId) && r;
    });
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /^stage\s+awaiting approval$/m);
    assert.match(first.out, /^jobs\s+-$/m, 'no job: a dash, as every empty row');
    assert.match(
      first.out,
      /^preview \S+ \(9 definitions, overwrite_unlocked\/create_and_lock\/do_nothing, mode apply\)$/m,
    );
    assert.match(first.out, /^preview: 3 created, 3 updated, 3 skipped, 0 deleted$/m);
    assert.match(first.out, new RegExp(`^reject:  dataops reject ${workflowId} --reason "\\.\\.\\."$`, 'm'));
    const json = JSON.parse((await cli(['status', workflowId, '--json'], env)).out) as {
      preview: { previewId: string } | null;
    };
    const approveFirst = approveCommand(first.out, workflowId)!;
    assert.equal(json.preview?.previewId, approveFirst.at(-1));
    // --follow names it too. Approved before --follow looked (status and the approval can take less than a second),
    // the follow would never see it: it prints the preview waiting for a decision, not one already decided.
    await eventually('--follow naming the first preview', () =>
      followed().includes(`approve: dataops ${approveFirst.join(' ')}\n`),
    );

    // Meanwhile someone else adds the new definitions to the target: the approval of the first preview gets a new
    // one, which is asked for again, and shown.
    const other = await clientFor(sim);
    await other.testDefinitions.import(
      PROD,
      { mode: 'apply', on_match: 'skip', on_new: 'create', on_absence: 'do_nothing' },
      await other.testDefinitions.export(DEV, { origin: 'both' }),
    );
    const approved = await cli(approveFirst, env);
    assert.equal(approved.code, 0, approved.err);
    // --follow prints the new preview's commands once it is asked for; status shows the same.
    const second = await eventually('--follow naming the new preview', async () => {
      const asked = followed()
        .split('\n')
        .filter((l) => l.startsWith('approve: '));
      return asked.length === 2 && { command: asked[1]!.replace(/^approve: dataops /, '').split(' ') };
    }).catch(async (err: Error) => {
      const handle = t.env.client.workflow.getHandle(workflowId);
      const history = await handle.fetchHistory();
      const events = history.events?.map((e) => `${e.eventType}@${String(e.eventTime?.seconds)}`).join(' ');
      const { historyLength } = await handle.describe();
      const { stage, updatedAt } = await handle.query(progressQuery);
      const previewId = (await handle.query(previewQuery))?.previewId;
      const now = `now: length ${historyLength}, ${stage} at ${updatedAt}, preview ${previewId}`;
      throw new Error(`${err.message}; --follow printed:\n${followed()}\nhistory: ${events}\n${now}`);
    });
    assert.notEqual(second.command.at(-1), approveFirst.at(-1));
    const again = await cli(['status', workflowId], env);
    assert.deepEqual(approveCommand(again.out, workflowId), second.command);
    assert.match(again.out, /^preview: 0 created, /m, 'the fresh preview shows what the approver has not seen');
    const applied = await cli(second.command, env);
    assert.equal(applied.code, 0, applied.err);

    const waited = await cli(['status', workflowId, '--wait'], env);
    assert.equal(waited.code, 0, waited.err);
    // Without --by, the decision names the user the CLI ran as.
    assert.match(waited.out, new RegExp(`^promotion APPLIED \\(approved by ${userInfo().username}\\)$`, 'm'));
    assert.doesNotMatch(waited.out, /^approve:/m, 'a closed promotion asks for nothing');
    const closed = JSON.parse((await cli(['status', workflowId, '--json'], env)).out) as { preview: unknown };
    assert.equal(closed.preview, null, "a closed one's preview is in its result");
    // Each preview's commands, once each.
    assert.deepEqual(
      followed()
        .split('\n')
        .filter((l) => l.startsWith('approve: ')),
      [`approve: dataops ${approveFirst.join(' ')}`, `approve: dataops ${second.command.join(' ')}`],
    );
  }
});
