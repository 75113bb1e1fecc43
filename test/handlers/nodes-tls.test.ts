// A self-signed https node, on libsql and PostgreSQL: refused when verified (the /test answer shows the key's pin),
// accepted when that pin is set, refused again — with nothing sent to it — once its certificate changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { hostReading } from '../support/fake-host.js';
import { serveApp, type RemotePanel } from './nodes-remote.js';

function selfSigned(dir: string, name: string): { key: string; cert: string } {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=node.test',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
}

const close = (s: ServerType) =>
  new Promise<void>((r) => {
    s.close(() => r());
    (s as any).closeAllConnections?.();
  });

describe.each(testDatabases())('https node trust on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let node: TestApp;
  let token = '';
  let server: ServerType;
  let port = 0;
  const seen: RemotePanel['seen'] = [];
  const dir = mkdtempSync(join(tmpdir(), 'node-tls-'));
  const first = selfSigned(dir, 'a');
  const second = selfSigned(dir, 'b');
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const conn = () => ({ scheme: 'https', address: '127.0.0.1', port, apiToken: token, allowPrivateAddress: true });

  beforeAll(async () => {
    node = await createTestApp(db);
    token = (await node.services.tokens.create('central')).token;
    node.host.reading = hostReading({ cpu: { idle: 50, total: 100 }, mem: { current: 256, total: 1024 } });
    await node.services.status.tick();
    server = await serveApp(node, seen, { tls: first });
    port = (server.address() as AddressInfo).port;
    t = await createTestApp(db, {
      deps: {
        http: createGuardedFetch(),
        pusherOptions: { coalesceMs: 5, baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 },
      },
    });
    s = await login(t);
  });
  afterAll(async () => {
    if (server) await close(server);
    await node?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let pin = '';

  it('verify (the default) refuses the self-signed certificate and shows the pin to use', async () => {
    seen.length = 0;
    const r = (await post('/panel/api/nodes/test', conn())).json.obj;
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/not trusted/);
    expect(r.tlsPin).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(r.error).toContain(`sha256/${r.tlsPin}`);
    expect(seen).toEqual([]); // not even the request line (with the token) was sent
    pin = r.tlsPin;
  });

  it('pin accepts the node whose key matches; a wrong or missing pin is refused', async () => {
    const ok = (await post('/panel/api/nodes/test', { ...conn(), tlsMode: 'pin', tlsPin: `sha256/${pin}` })).json.obj;
    expect(ok).toMatchObject({ status: 'online', cpuPct: 50, tlsPin: pin });
    expect((await post('/panel/api/nodes/add', { name: 'x', ...conn(), tlsMode: 'pin' })).json.msg).toMatch(
      /tlsPin: is required/,
    );
    expect(
      (await post('/panel/api/nodes/add', { name: 'x', ...conn(), tlsMode: 'pin', tlsPin: 'abc' })).json.msg,
    ).toMatch(/tlsPin: must be the base64/);
    expect((await post('/panel/api/nodes/test', { ...conn(), tlsMode: 'skip' })).json.obj.status).toBe('online');
  });

  it('a pinned node whose certificate changes goes error and receives nothing', async () => {
    const add = await post('/panel/api/nodes/add', { name: 'pinned', ...conn(), tlsMode: 'pin', tlsPin: pin });
    expect(add.json.success).toBe(true);
    expect(add.json.obj).toMatchObject({ tlsMode: 'pin', tlsPin: pin });
    const id = add.json.obj.id;
    expect((await post(`/panel/api/nodes/probe/${id}`)).json.obj.status).toBe('online');

    await close(server);
    server = await serveApp(node, seen, { tls: second, port });
    seen.length = 0;
    const r = (await post(`/panel/api/nodes/probe/${id}`)).json.obj;
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/certificate key of 127\.0\.0\.1:\d+ changed/);
    expect(r.tlsPin).not.toBe(pin);
    const got = (await call(t, 'GET', `/panel/api/nodes/get/${id}`, undefined, s)).json.obj;
    expect(got).toMatchObject({ status: 'error' });
    expect(got.lastError).toMatch(/changed/);
    // Nothing reaches it through the pull or the pusher either.
    await t.services.nodePuller.pull();
    t.services.nodePusher.enqueue(id, 'all', 'all');
    await t.services.nodePusher.idle();
    expect(t.services.nodePusher.stats()[id]!.lastError).toMatch(/changed/);
    expect(seen).toEqual([]);
  });
});
