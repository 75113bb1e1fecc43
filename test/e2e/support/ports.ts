// Free loopback ports for end-to-end tests. Every probe socket stays open until all ports are taken, so the
// same port is never handed out twice (core-notes.md).
import { createServer, type Server } from 'node:net';

export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const srv = createServer();
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve());
      });
      servers.push(srv);
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}
