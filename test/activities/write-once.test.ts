/**
 * The one state machine of every remote write (src/exactly-once/write-once.ts): which failures are certain, and what
 * each attempt records and looks for. Jobs, orders and applies go through it; their own tests drive it against the
 * simulator and TestGen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  AuthenticationFailed,
  Conflict,
  ConnectionFailed,
  GarbledResponse,
  InvalidRequest,
  NotFound,
  NotSentInTime,
  RateLimited,
  RequestAborted,
  RequestTimedOut,
  ServerError,
  ServiceError,
  UnexpectedResponse,
} from '../../src/api/index.js';
import {
  certainlyNotCommitted,
  LEAVES_WITHIN_MS,
  recordingRefusal,
  writeOnce,
  type Phase,
  type Prior,
  type Sent,
  type Write,
} from '../../src/exactly-once/write-once.js';
import { quiet } from '../helpers/mock-activity.js';

const at = { method: 'POST', url: 'http://service/api/v1/x' };

describe('what a failed write certainly did not do', () => {
  const certain: [string, Error][] = [
    ['a token that could not be had (never sent)', new ServerError('login 503', { ...at, status: 503, auth: true })],
    ['a refused connection', new ConnectionFailed('refused', { ...at, code: 'ECONNREFUSED' })],
    ['an unknown host', new ConnectionFailed('no such host', { ...at, code: 'ENOTFOUND' })],
    ['a 429', new RateLimited('slow down', { ...at, status: 429 }, 1_000)],
    ['a 401', new AuthenticationFailed('no', { ...at, status: 401 })],
    ['a 404', new NotFound('gone', { ...at, status: 404 })],
    ['a 409', new Conflict('busy', { ...at, status: 409 })],
    ['a 400', new InvalidRequest('bad', { ...at, status: 400 })],
    ['too late to leave (never sent)', new NotSentInTime('late', at)],
  ];
  const maybe: [string, Error][] = [
    ['a timeout', new RequestTimedOut('slow', at)],
    ['a reset after connecting', new ConnectionFailed('reset', { ...at, code: 'ECONNRESET' })],
    ['an abort after the send', new RequestAborted('aborted', at)],
    ['a 5xx', new ServerError('oops', { ...at, status: 503 })],
    ['a garbled 2xx', new GarbledResponse('not JSON', { ...at, status: 200 })],
    ['a 2xx that breaks its schema', new UnexpectedResponse('no id', { ...at, status: 200 }, [])],
    ['an error we do not know', new Error('something else')],
  ];
  for (const [what, err] of certain) test(`certain: ${what}`, () => assert.equal(certainlyNotCommitted(err), true));
  for (const [what, err] of maybe)
    test(`may have committed: ${what}`, () => assert.equal(certainlyNotCommitted(err), false));
  test('every service error class is judged by the rule, not by a default', () => {
    assert.ok([...certain, ...maybe].every(([, e]) => e instanceof Error));
    assert.equal(certainlyNotCommitted(new ServiceError('plain', at)), true, 'a plain refusal (not retryable)');
  });
});

describe('one write, attempt by attempt', () => {
  /** Runs a write as attempt `attempt`; returns its result or error, what it recorded, and what it looked for. */
  async function attempt(
    n: number,
    prior: Prior<string>,
    send: () => Promise<string>,
    found: (sending: unknown) => string | undefined = () => undefined,
  ) {
    const recorded: Phase<string>[] = [];
    const looked: unknown[] = [];
    const sends: number[] = [];
    const w: Write<string, string> = {
      prior,
      mark: async () => 'mark',
      send: async () => {
        sends.push(n);
        return send();
      },
      find: async (sending) => {
        looked.push(sending);
        return found(sending);
      },
      record: (p) => void recorded.push(p),
    };
    const outstanding = { value: false };
    const env = new MockActivityEnvironment({ attempt: n }, quiet);
    const ended = await env
      .run(() => recordingRefusal(outstanding, w.record, () => writeOnce(w, outstanding)))
      .then(
        (result) => ({ result, error: undefined }),
        (error: unknown) => ({ result: undefined, error }),
      );
    return { ...ended, recorded, looked, sends };
  }
  const nothing: Prior<string> = { mayHaveSent: false };

  test('answered: the send is recorded before it leaves, and nothing is looked for', async () => {
    const r = await attempt(1, nothing, async () => 'job-1');
    assert.equal(r.result, 'job-1');
    assert.deepEqual(
      r.recorded.map((p) => p.phase),
      ['sending'],
    );
    assert.deepEqual(r.looked, []);
  });

  test('refused: recorded as such, so the next attempt sends at once; nothing looked for', async () => {
    const r = await attempt(1, nothing, () => Promise.reject(new RateLimited('429', { ...at, status: 429 }, 1_000)));
    assert.ok(r.error instanceof RateLimited);
    assert.deepEqual(
      r.recorded.map((p) => p.phase),
      ['sending', 'rejected'],
    );
    assert.deepEqual(r.recorded.at(-1), { phase: 'rejected', attempt: 1 });
    assert.deepEqual(r.looked, []);
  });

  test('lost: looked for from its own send; found, it is the answer', async () => {
    const r = await attempt(
      1,
      nothing,
      () => Promise.reject(new RequestTimedOut('slow', at)),
      () => 'job-found',
    );
    assert.equal(r.result, 'job-found');
    assert.equal((r.looked[0] as { mark: string }).mark, 'mark', 'the lookup compares with the mark taken before');
  });

  test('lost, and nothing found once settled: the failure, recorded as nothing outstanding', async () => {
    const r = await attempt(1, nothing, () => Promise.reject(new ServerError('503', { ...at, status: 503 })));
    assert.ok(r.error instanceof ServerError);
    assert.deepEqual(r.recorded.at(-1), { phase: 'rejected', attempt: 1 });
  });

  test('a lookup that cannot tell ends the attempt with the send still outstanding: not recorded as refused', async () => {
    const r = await attempt(
      1,
      nothing,
      () => Promise.reject(new RequestTimedOut('slow', at)),
      () => {
        throw new Error('lookup failed');
      },
    );
    assert.equal((r.error as Error).message, 'lookup failed');
    assert.deepEqual(
      r.recorded.map((p) => p.phase),
      ['sending'],
      'the next attempt settles and looks again before it sends',
    );
  });

  test('after an attempt that may have sent: looked for first, and not sent again when found', async () => {
    const sending = { sentAt: 1, mark: 'old-mark' };
    const r = await attempt(
      2,
      { mayHaveSent: true, sending },
      async () => 'job-2',
      () => 'job-1',
    );
    assert.equal(r.result, 'job-1');
    // A stalled attempt may send until its stamp plus the bound: the settle window runs from then.
    assert.deepEqual(r.looked, [{ ...sending, sentAt: 1 + LEAVES_WITHIN_MS }]);
    assert.deepEqual(r.sends, [], 'nothing sent');
  });

  test('after an attempt that may have sent and created nothing: sends, with a mark of its own', async () => {
    const sending = { sentAt: 1, mark: 'old-mark' };
    const r = await attempt(2, { mayHaveSent: true, sending }, async () => 'job-2');
    assert.equal(r.result, 'job-2');
    assert.deepEqual(r.looked, [{ ...sending, sentAt: 1 + LEAVES_WITHIN_MS }], 'looked for the recorded send first');
    assert.deepEqual(r.sends, [2]);
  });

  test("a slow record (a busy submitter): its own lookup's window runs from when the request left, after the record", async () => {
    let recordedAt = 0;
    let looked: Sent<string> | undefined;
    let stamp = 0;
    let leaving = 0;
    const w: Write<string, string> = {
      prior: nothing,
      mark: async () => 'mark',
      record: async (phase) => {
        if (phase.phase === 'sending') stamp = phase.sentAt;
        await delay(30);
        recordedAt = Date.now();
      },
      send: (leaveBy) => ((leaving = leaveBy), Promise.reject(new RequestTimedOut('slow', at))),
      find: async (sending) => ((looked = sending), 'job-held'),
    };
    assert.equal(await writeOnce(w, { value: false }), 'job-held');
    assert.equal(looked?.mark, 'mark', 'the mark taken before the record');
    assert.ok(looked.sentAt >= recordedAt, 'the settle window starts once the record is made, as the request leaves');
    assert.equal(leaving, stamp + LEAVES_WITHIN_MS, 'the request may leave until its stamp plus the bound');
    assert.ok(looked.sentAt <= leaving, 'and not later: the window starts by then');
  });

  test('a failure before the send (the mark) is certain', async () => {
    const outstanding = { value: false };
    const recorded: Phase<string>[] = [];
    const env = new MockActivityEnvironment({ attempt: 3 }, quiet);
    const w: Write<string, string> = {
      prior: nothing,
      mark: () => Promise.reject(new ServerError('listing 503', { ...at, status: 503 })),
      send: async () => assert.fail('never sent'),
      find: async () => assert.fail('nothing to look for'),
      record: (p) => void recorded.push(p),
    };
    await assert.rejects(env.run(() => recordingRefusal(outstanding, w.record, () => writeOnce(w, outstanding))));
    assert.deepEqual(recorded, [{ phase: 'rejected', attempt: 3 }]);
  });
});
