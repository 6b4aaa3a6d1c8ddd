/**
 * An HTTP proxy in front of a real server that a test arms to hold, lose or refuse chosen requests, for faults that
 * the simulator injects by itself but a reference implementation (TestGen) does not:
 *   - `hold`: the request waits `holdMs` before it is forwarded. It is forwarded even when its client has gone (a
 *     killed worker), so it still commits, as a request a service held would;
 *   - `lose`: the request is forwarded and commits, and its answer is dropped: the client's connection is reset;
 *   - `refuse`: the request is not forwarded, and is answered `status` (a gateway's 503 before the service).
 * Real sockets both ways. Each armed rule keeps what the server answered to the requests it took, so a test can name
 * the job a lost answer created.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface HoldRule {
  method: string;
  path: RegExp;
  action: 'hold' | 'lose' | 'refuse';
  /** How long a held request waits. */
  holdMs?: number;
  /** What a refused request is answered. @default 503 */
  status?: number;
  /** How many requests it takes; later ones pass. @default 1 */
  times?: number;
}

export interface Armed {
  /** Requests the rule took so far. */
  hits: number;
  /** What the server answered to each of them, once it did (status and parsed JSON body). */
  answers: { status: number; body: unknown }[];
}

export interface HoldingProxy {
  url: string;
  arm(rule: HoldRule): Armed;
  /** Every request forwarded so far (not those refused): method, path and the server's status. */
  forwarded(): Passed[];
  close(): Promise<void>;
}

export interface Passed {
  method: string;
  path: string;
  status: number;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host'];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...headers };
  for (const h of HOP_BY_HOP) delete out[h];
  return out;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const { hostname, port } = new URL(target);
  const rules: (HoldRule & Armed & { left: number })[] = [];
  const log: Passed[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const forward = (method: string, path: string, headers: IncomingHttpHeaders, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const up = request(
        { host: hostname, port, method, path, headers: { ...endToEnd(headers), 'content-length': body.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      up.on('error', reject);
      up.end(body);
    });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const rule = rules.find((r) => r.left > 0 && r.method === method && r.path.test(path));
      if (rule) {
        rule.left--;
        rule.hits++;
      }
      const go = async () => {
        try {
          const answer = await forward(method, path, req.headers, Buffer.concat(chunks));
          log.push({ method, path, status: answer.status });
          rule?.answers.push({ status: answer.status, body: parsed(answer.body.toString('utf8')) });
          if (rule?.action === 'lose') {
            req.socket.resetAndDestroy();
            return;
          }
          if (req.socket.destroyed) return;
          res.writeHead(answer.status, { ...endToEnd(answer.headers), 'content-length': answer.body.length });
          res.end(answer.body);
        } catch {
          req.socket.destroy();
        }
      };
      if (rule?.action === 'refuse') {
        const status = rule.status ?? 503;
        rule.answers.push({ status, body: undefined });
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end('{"detail":"refused by the test proxy"}');
      } else if (rule?.action === 'hold') {
        const timer = setTimeout(() => {
          timers.delete(timer);
          void go();
        }, rule.holdMs ?? 0);
        timers.add(timer);
      } else void go();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    arm: (rule) => {
      const armed = { ...rule, hits: 0, answers: [], left: rule.times ?? 1 };
      rules.push(armed);
      return armed;
    },
    forwarded: () => [...log],
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
