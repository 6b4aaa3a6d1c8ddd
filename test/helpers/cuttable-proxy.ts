/**
 * A TCP proxy in front of a server that a test can cut and restore: cut, it resets every open connection and every
 * new one, as a store that went away does; restored, it passes bytes through again. Real sockets both ways. It keeps
 * what clients sent, so a test can read the requests' headers.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface CuttableProxy {
  url: string;
  /** What clients sent through it so far (latin1), for asserting on request headers. */
  sent(): string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(target: string): Promise<CuttableProxy> {
  const { hostname, port } = new URL(target);
  let down = false;
  const open = new Set<Socket>();
  let sent = '';
  const server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.once('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d: Buffer) => (sent = (sent + d.toString('latin1')).slice(-1_000_000)));
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    sent: () => sent,
    cut: () => {
      down = true;
      for (const s of open) s.resetAndDestroy();
    },
    restore: () => {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
