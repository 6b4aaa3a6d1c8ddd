/** Free TCP ports on 127.0.0.1, for the local servers the demo (and the tests) start. */
import { createServer, type Server } from 'node:net';

/**
 * `count` TCP ports free on 127.0.0.1 right now, all different: each is held until all are chosen, since a port
 * closed and asked for again can come back (two servers of one world once got the same port, and one of them could
 * not listen).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const s = createServer().listen(0, '127.0.0.1', () => resolve(s));
          s.once('error', reject);
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** A TCP port free on 127.0.0.1 right now. */
export const freePort = async (): Promise<number> => (await freePorts(1))[0]!;
