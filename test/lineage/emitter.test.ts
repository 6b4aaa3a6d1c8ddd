/**
 * The lineage emitter against real HTTP servers and a real file: delivery in order, bounded retries, refusals
 * dropped at once, an unreachable or silent endpoint dropped after its retries with a warning that names no secret,
 * and `emit` returning before anything is sent.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LineageEmitter, type LineageTransport } from '../../src/lineage/emitter.js';
import { eventually } from '../helpers/wait.js';

interface Received {
  body: Record<string, unknown>;
  authorization?: string;
}

/** A server that answers each POST with the next status of `statuses` (the last one repeats); `null`: never answers. */
async function endpoint(statuses: (number | null)[]): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  let i = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      received.push({
        body: JSON.parse(data) as Record<string, unknown>,
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      });
      const status = statuses[Math.min(i++, statuses.length - 1)];
      if (status === null) return; // held: the client's timeout ends it
      res.writeHead(status ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/lineage`, received, server };
}

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.closeAllConnections();
  for (const s of servers) s.close();
});

function emitterTo(transport: LineageTransport) {
  const outcomes: { outcome: string; reason?: string }[] = [];
  const emitter = new LineageEmitter({
    transport,
    backoffMs: () => 10,
    onOutcome: (outcome, reason) => outcomes.push({ outcome, ...(reason ? { reason } : {}) }),
  });
  return { emitter, outcomes };
}

const http = (url: string, extra: Partial<Extract<LineageTransport, { type: 'http' }>> = {}): LineageTransport => ({
  type: 'http',
  url,
  timeoutMs: 2_000,
  retries: 3,
  ...extra,
});

const event = (n: number) => ({ eventType: 'START', n });

describe('the lineage emitter', () => {
  test('retries a 503 and a 429 until the endpoint takes the event, in order, with the API key as a bearer', async () => {
    const e = await endpoint([503, 429, 200]);
    servers.push(e.server);
    const { emitter, outcomes } = emitterTo(http(e.url, { apiKey: 'key-123' }));
    emitter.emit(async () => [event(1)]);
    emitter.emit(async () => [event(2), event(3)]);
    await emitter.flush(10_000);
    assert.deepEqual(
      e.received.map((r) => r.body.n),
      [1, 1, 1, 2, 3],
      'the first event three times (503, 429, taken), then the others',
    );
    assert.ok(e.received.every((r) => r.authorization === 'Bearer key-123'));
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ['sent', 'sent', 'sent'],
    );
  });

  test('a refusal (401) is dropped at once, and the warning names the status, not the key', async () => {
    const e = await endpoint([401]);
    servers.push(e.server);
    const { emitter, outcomes } = emitterTo(http(e.url, { apiKey: 'secret-key-456' }));
    emitter.emit(async () => [event(1)]);
    await emitter.flush(10_000);
    assert.equal(e.received.length, 1, 'not retried: the same key would be refused again');
    assert.equal(outcomes[0]?.outcome, 'dropped');
    assert.match(outcomes[0]?.reason ?? '', /HTTP 401/);
    assert.doesNotMatch(JSON.stringify(outcomes), /secret-key-456/);
  });

  test('an endpoint that never answers is tried 1 + retries times, then the event is dropped; the next goes on', async () => {
    const e = await endpoint([null, null, 200]);
    servers.push(e.server);
    const { emitter, outcomes } = emitterTo(http(e.url, { timeoutMs: 200, retries: 1 }));
    emitter.emit(async () => [event(1)]);
    emitter.emit(async () => [event(2)]);
    // emit returned at once: nothing has been answered yet, and the events are queued.
    assert.equal(outcomes.length, 0);
    await emitter.flush(10_000);
    assert.deepEqual(
      e.received.map((r) => r.body.n),
      [1, 1, 2],
    );
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ['dropped', 'sent'],
    );
    assert.match(outcomes[0]?.reason ?? '', /did not take a START event: TimeoutError/);
  });

  test('an unreachable endpoint drops the event after its retries', async () => {
    const e = await endpoint([200]);
    const url = e.url;
    await new Promise<void>((resolve) => e.server.close(() => resolve())); // nothing listens there any more
    const { emitter, outcomes } = emitterTo(http(url, { retries: 2 }));
    emitter.emit(async () => [event(1)]);
    await emitter.flush(10_000);
    assert.equal(outcomes.length, 1);
    assert.equal(outcomes[0]?.outcome, 'dropped');
    assert.match(outcomes[0]?.reason ?? '', /ECONNREFUSED/);
  });

  test('an event that cannot be built is dropped with its reason; the ones after it are sent', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lineage-')), 'sub', 'events.jsonl');
    const { emitter, outcomes } = emitterTo({ type: 'file', path: file });
    emitter.emit(async () => [event(1)]);
    emitter.emit(() => Promise.reject(new Error('no summary')));
    emitter.emit(async () => [event(2)]);
    await emitter.flush(10_000);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { n: number }).n),
      [1, 2],
      'JSON lines, in order, in a directory made for them',
    );
    assert.deepEqual(outcomes[1], { outcome: 'dropped', reason: 'an event could not be built: no summary' });
  });

  test('close() ends the send in flight and drops what is queued, each counted', async () => {
    const e = await endpoint([null]);
    servers.push(e.server);
    const { emitter, outcomes } = emitterTo(http(e.url, { timeoutMs: 600_000, retries: 5 }));
    emitter.emit(async () => [event(1)]);
    emitter.emit(async () => [event(2)]);
    await eventually('the first event sent', () => e.received.length === 1 || undefined);
    await emitter.close();
    assert.deepEqual(outcomes, [
      { outcome: 'dropped', reason: `${e.url} did not take a START event: AbortError` },
      { outcome: 'dropped', reason: 'the worker stopped before it was sent' },
    ]);
    emitter.emit(async () => [event(3)]);
    assert.deepEqual(outcomes[2], { outcome: 'dropped', reason: 'the worker is stopping' });
  });

  test('past its bound the queue drops the newest, and off sends nothing', async () => {
    const e = await endpoint([null]);
    servers.push(e.server);
    const outcomes: string[] = [];
    const emitter = new LineageEmitter({
      transport: http(e.url, { timeoutMs: 100, retries: 0 }),
      maxQueued: 1,
      onOutcome: (o, reason) => outcomes.push(`${o}${reason?.includes('queue is full') ? ' (full)' : ''}`),
    });
    emitter.emit(async () => [event(1)]); // taken by the sender at once
    emitter.emit(async () => [event(2)]); // queued
    emitter.emit(async () => [event(3)]); // over the bound
    await emitter.flush(10_000);
    assert.deepEqual(outcomes, ['dropped (full)', 'dropped', 'dropped']);
    const off = new LineageEmitter({ transport: { type: 'off' } });
    assert.equal(off.enabled, false);
    off.emit(() => Promise.reject(new Error('never built')));
    await off.flush(10);
  });
});
