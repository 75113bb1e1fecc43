// The server half of the clients benchmark, run as a child process (bench/clients.bench.ts forks it), so the
// resident memory figure is the server's own: createPanelApp over the store (the test app's composition: manual
// clock, fake core and host), served by @hono/node-server on a loopback port. The parent seeds the database over
// its own connection and drives the API over HTTP. IPC commands: advance the clock, report memory (after a full GC).
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createTestApp } from '../test/support/app.js';

export type ServerCommand = { id: number; cmd: 'now' | 'advance' | 'memory' | 'stop'; ms?: number };
export type ServerReply = { id: number; now?: number; rss?: number; heapUsed?: number };

const url = process.env.BENCH_DB_URL!;
const name = process.env.BENCH_DB_NAME === 'pg' ? 'pg' : 'libsql';
const t = await createTestApp({ name, freshUrl: async () => url });
/**
 * The server's own time for each request (from the Request to the Response with its body built, e.g. the 10 MB
 * JSON text of inbounds/get), what app.request() measured in-process, reported in the `x-server-ms` header so the
 * figures exclude the loopback HTTP transport and the benchmark's client.
 */
const timedFetch = async (req: Request): Promise<Response> => {
  const t0 = performance.now();
  const res = await t.app.fetch(req);
  res.headers.set('x-server-ms', (performance.now() - t0).toFixed(3));
  return res;
};
const server = serve({ fetch: timedFetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.send!({ ready: true, port: info.port, now: t.clock.now() });
});

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

process.on('message', async (m: ServerCommand) => {
  const reply = (r: Omit<ServerReply, 'id'>) => process.send!({ id: m.id, ...r });
  switch (m.cmd) {
    case 'now': reply({ now: t.clock.now() }); break;
    case 'advance': t.clock.advance(m.ms ?? 0); reply({ now: t.clock.now() }); break;
    case 'memory': {
      gc();
      const mem = process.memoryUsage();
      reply({ rss: mem.rss, heapUsed: mem.heapUsed });
      break;
    }
    case 'stop':
      server.close();
      await t.close();
      reply({});
      process.disconnect();
      break;
  }
});
