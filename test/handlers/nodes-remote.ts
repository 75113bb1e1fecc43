// A second, real panel (the test app on its own database) served on a real local port, to stand in for a remote
// node: the central panel probes it and pushes clients to it through the guarded fetch.
import { serve, type ServerType } from '@hono/node-server';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../support/app.js';
import { hostReading } from '../support/fake-host.js';
import type { TestDatabase } from '../support/databases.js';

export interface RemotePanel {
  t: TestApp;
  port: number;
  token: string;
  /** Authorization headers and paths of every request the remote received. */
  seen: { path: string; auth: string | null }[];
  close(): Promise<void>;
}

/** Serves `t` on 127.0.0.1 (`port` 0: any free port), over https with `tls`. */
export async function serveApp(
  t: TestApp,
  seen: RemotePanel['seen'],
  opts: { port?: number; tls?: { key: string; cert: string } } = {},
): Promise<ServerType> {
  return new Promise((resolve) => {
    const s = serve(
      {
        fetch: (req: Request) => {
          seen.push({ path: new URL(req.url).pathname, auth: req.headers.get('authorization') });
          return t.app.fetch(req);
        },
        hostname: '127.0.0.1',
        port: opts.port ?? 0,
        ...(opts.tls ? { createServer: createHttpsServer, serverOptions: opts.tls } : {}),
      },
      () => resolve(s),
    );
  });
}

export async function startRemotePanel(db: TestDatabase): Promise<RemotePanel> {
  const t = await createTestApp(db);
  const token = (await t.services.tokens.create('central')).token;
  // 50 % CPU, 25 % memory in the remote's status snapshot.
  t.host.reading = hostReading({ cpu: { idle: 50, total: 100 }, mem: { current: 256, total: 1024 } });
  await t.services.status.tick();
  const seen: RemotePanel['seen'] = [];
  const server: ServerType = await new Promise((resolve) => {
    const s = serve(
      {
        fetch: (req: Request) => {
          seen.push({ path: new URL(req.url).pathname, auth: req.headers.get('authorization') });
          return t.app.fetch(req);
        },
        hostname: '127.0.0.1',
        port: 0,
      },
      () => resolve(s),
    );
  });
  const port = (server.address() as AddressInfo).port;
  return {
    t,
    port,
    token,
    seen,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      await t.close();
    },
  };
}
