/**
 * The simulator's HTTP plumbing for every route: the JSON body parser, the service's error envelopes, the injected
 * faults (before and after a handler), and the request log (client-closed requests included).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SimContext } from './context.js';
import { SimError, unprocessable } from './errors.js';
import type { Fault, FaultBook } from './faults.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault injected into this request, if any. */
    simFault: Fault | null;
    /** Who the request authenticated as (never a credential). */
    simUser: string | null;
  }
}

export interface RequestLogEntry {
  seq: number;
  at: string;
  method: string;
  path: string;
  status: number;
  username: string | null;
  fault: Fault['kind'] | null;
  /** The client had closed the connection before the answer was written (an aborted or timed-out request). */
  client_closed: boolean;
}

export interface HttpDeps {
  ctx: SimContext;
  faults: FaultBook;
  /** Runs due job and order transitions. */
  tick: () => void;
  /** Saves the state file, if any. */
  persist: () => void;
  log?: ((line: string) => void) | undefined;
}

const errorBody = (code: string, detail: string) => ({ detail: { errors: [{ code, detail }] } });
/** The `X-Request-Id` a request carried (a write's own id, from our client), for the record of what it created. */
export const requestIdOf = (req: FastifyRequest): string | null => {
  const id = req.headers['x-request-id'];
  return typeof id === 'string' ? id : null;
};
const pathOf = (req: FastifyRequest) => req.url.split('?')[0] ?? req.url;
/** Faults that close the connection themselves (and log the request there). */
const closesConnection = (f: Fault | null) => f?.kind === 'reset' || f?.kind === 'drop_after_commit';

/** Installs the body parser, error handlers, fault and log hooks on the root app; returns the request log. */
export function installHttp(app: FastifyInstance, deps: HttpDeps): { requests: () => RequestLogEntry[] } {
  const { ctx, faults, tick, persist, log } = deps;
  const requestLog: RequestLogEntry[] = [];
  const closedByClient = new WeakSet<FastifyRequest>();
  app.decorateRequest('simFault', null);
  app.decorateRequest('simUser', null);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(
        unprocessable([{ loc: ['body'], msg: `JSON decode error: ${(err as Error).message}`, type: 'json_invalid' }]),
      );
    }
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof SimError) return reply.status(err.status).headers(err.headers).send(err.body);
    const code = (err as { code?: string }).code;
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return reply
        .status(415)
        .send(
          errorBody('unsupported_media_type', `unsupported content type ${req.headers['content-type'] ?? '(none)'}`),
        );
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.status(413).send(errorBody('payload_too_large', 'request body too large'));
    const e = err instanceof Error ? err : new Error(String(err));
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) return reply.status(status).send(errorBody('bad_request', e.message));
    log?.(`internal error on ${req.method} ${req.url}: ${e.stack ?? e.message}`);
    return reply.status(500).send(errorBody('internal_error', 'internal error'));
  });
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send(errorBody('not_found', `no route ${req.method} ${pathOf(req)}`)),
  );

  const logRequest = (req: FastifyRequest, status: number) => {
    const entry: RequestLogEntry = {
      seq: requestLog.length + 1,
      at: ctx.clock.iso(),
      method: req.method,
      path: pathOf(req),
      status,
      username: req.simUser,
      fault: req.simFault?.kind ?? null,
      client_closed: closedByClient.has(req),
    };
    if (!entry.path.startsWith('/_sim/')) requestLog.push(entry);
    log?.(`${entry.method} ${req.url} -> ${status}${entry.fault ? ` [fault: ${entry.fault}]` : ''}`);
  };

  app.addHook('onRequest', async (req, reply) => {
    tick();
    const path = pathOf(req);
    if (path.startsWith('/_sim/')) return;
    const fault = faults.take(req.method, path);
    if (!fault) return;
    req.simFault = fault;
    switch (fault.kind) {
      case 'status':
        return reply.status(fault.status).send(errorBody('injected_fault', `injected ${fault.status}`));
      case 'rate_limit':
        return reply
          .status(429)
          .header('retry-after', String(fault.retry_after))
          .send(errorBody('rate_limited', 'too many requests'));
      case 'reset':
        logRequest(req, 0);
        reply.hijack();
        req.raw.socket.destroy();
        return;
      case 'delay':
        return; // held in preHandler, once the body has arrived (a server that received the request, then stalls)
      case 'respond':
        return reply.status(fault.status).send(fault.body ?? null);
      case 'malformed_json':
        return reply.status(200).header('content-type', 'application/json').send('{"id": "3f1c", "status": ');
      default:
        return; // unknown_status and drop_after_commit act after the handler
    }
  });
  app.addHook('preHandler', async (req) => {
    if (req.simFault?.kind !== 'delay') return;
    await Promise.race([delay(req.simFault.delay_ms, undefined, { ref: false }), faults.released(req.simFault.id)]);
    tick();
  });
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.simFault?.kind === 'drop_after_commit') {
      // The handler has run and committed its change; the client never sees the answer.
      logRequest(req, 0);
      req.raw.socket.destroy();
    }
    return payload;
  });
  app.addHook('onRequestAbort', async (req) => {
    // The client went away before the answer (an aborted or timed-out request): logged as 499, like nginx.
    if (closesConnection(req.simFault)) return; // closed by the fault, logged there
    closedByClient.add(req);
    logRequest(req, 499);
  });
  app.addHook('onResponse', async (req, reply) => {
    if (closedByClient.has(req)) return;
    if (!closesConnection(req.simFault)) logRequest(req, reply.statusCode);
    persist();
  });

  return { requests: () => requestLog.map((e) => ({ ...e })) };
}
