/**
 * Where lineage events go: off (the default), a file of JSON lines, or an OpenLineage HTTP endpoint. `emit` never
 * waits and never throws: events queue in the worker and one sender delivers them in order, retrying a failed send a
 * bounded number of times and then dropping it with a warning and a count. So an endpoint that is down, slow or
 * refusing never fails or slows a workflow. The price: events still queued when the worker dies are lost.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

type Json = Record<string, unknown>;

export type LineageTransport =
  | { type: 'off' }
  | { type: 'file'; path: string }
  | {
      type: 'http';
      /** The endpoint events are POSTed to, e.g. Marquez's `http://host:5000/api/v1/lineage`. */
      url: string;
      /** Sent as `Authorization: Bearer <apiKey>`; never logged. */
      apiKey?: string;
      timeoutMs: number;
      /** Sends after the first, each after a doubling delay (1 s, 2 s, … 30 s at most). */
      retries: number;
    };

export interface LineageEmitterOptions {
  transport: LineageTransport;
  /** Called once per event: `sent`, or `dropped` with the reason (a warning, no secret in it). */
  onOutcome?: (outcome: 'sent' | 'dropped', reason?: string) => void;
  /** The most events held at once; past it the newest are dropped. @default 10000 */
  maxQueued?: number;
  /** Waits between retries (tests shorten it). @default 1 s doubling to 30 s */
  backoffMs?: (retry: number) => number;
}

/** Events to build (reading the service where a facet needs it) and send, in the order they were emitted. */
export type PendingEvents = () => Promise<Json[]>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

export class LineageEmitter {
  private readonly queue: PendingEvents[] = [];
  private sending: Promise<void> | null = null;
  private readonly backoff: (retry: number) => number;
  /** Aborted by close(): the send in flight ends, and what is queued is dropped. */
  private readonly stopped = new AbortController();

  constructor(private readonly options: LineageEmitterOptions) {
    this.backoff = options.backoffMs ?? ((retry) => Math.min(30_000, 1_000 * 2 ** (retry - 1)));
  }

  get enabled(): boolean {
    return this.options.transport.type !== 'off';
  }

  /** Queues events for sending; returns at once. */
  emit(pending: PendingEvents): void {
    if (!this.enabled) return;
    if (this.stopped.signal.aborted) {
      this.options.onOutcome?.('dropped', 'the worker is stopping');
      return;
    }
    if (this.queue.length >= (this.options.maxQueued ?? 10_000)) {
      this.options.onOutcome?.('dropped', `the lineage queue is full (${this.queue.length} waiting)`);
      return;
    }
    this.queue.push(pending);
    this.sending ??= this.drain().finally(() => {
      this.sending = null;
    });
  }

  /** Resolves once every queued event is sent or dropped, or after `ms` (the worker's shutdown). */
  async flush(ms: number): Promise<void> {
    if (this.sending) await Promise.race([this.sending, sleep(ms, this.stopped.signal)]);
  }

  /** Stops sending: the event in flight and those queued are dropped (each counted). Flush first to give them time. */
  async close(): Promise<void> {
    this.stopped.abort();
    await this.sending;
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      if (this.stopped.signal.aborted) {
        this.options.onOutcome?.('dropped', 'the worker stopped before it was sent');
        continue;
      }
      let events: Json[];
      try {
        events = await next();
      } catch (err) {
        this.options.onOutcome?.('dropped', `an event could not be built: ${(err as Error).message}`);
        continue;
      }
      for (const event of events) await this.deliver(event);
    }
  }

  private async deliver(event: Json): Promise<void> {
    const t = this.options.transport;
    const line = JSON.stringify(event);
    if (t.type === 'file') {
      try {
        await mkdir(dirname(t.path), { recursive: true });
        await appendFile(t.path, `${line}\n`);
        this.options.onOutcome?.('sent');
      } catch (err) {
        this.options.onOutcome?.('dropped', `cannot append to ${t.path}: ${(err as Error).message}`);
      }
      return;
    }
    if (t.type !== 'http') return;
    let last = 'the worker stopped before it was sent';
    for (let attempt = 0; attempt <= t.retries && !this.stopped.signal.aborted; attempt++) {
      if (attempt > 0) await sleep(this.backoff(attempt), this.stopped.signal);
      const refused = await this.post(t, line);
      if (refused === null) {
        this.options.onOutcome?.('sent');
        return;
      }
      last = refused.reason;
      if (!refused.retryable) break;
    }
    this.options.onOutcome?.('dropped', `${t.url} did not take a ${String(event.eventType)} event: ${last}`);
  }

  /** null when the endpoint took it; else why not, and whether trying again may help. */
  private async post(
    t: Extract<LineageTransport, { type: 'http' }>,
    body: string,
  ): Promise<{ reason: string; retryable: boolean } | null> {
    try {
      const res = await fetch(t.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(t.apiKey ? { authorization: `Bearer ${t.apiKey}` } : {}),
        },
        body,
        signal: AbortSignal.any([AbortSignal.timeout(t.timeoutMs), this.stopped.signal]),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return null;
      // A 4xx other than 408 and 429 says the same again: the event or the key is refused.
      const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
      return { reason: `HTTP ${res.status}`, retryable };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return { reason: cause ?? (err as Error).name ?? 'network error', retryable: true };
    }
  }
}
