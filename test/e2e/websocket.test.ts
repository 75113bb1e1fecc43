// End to end: the node adapter (PanelServer) on 127.0.0.1 with port 0, a temporary data directory and no core
// binary; real `ws` clients. Session cookie accepted, Bearer and foreign origins refused, `status` within 3 s,
// one merged `invalidate` for a client added through the API, notification + 1001 on a panel restart, 1001 on
// a graceful stop, and the history file written on stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { PanelServer } from '../../adapters/node/server.js';
import { createLogger } from '../../adapters/node/logger.js';
import { panelVersion } from '../../adapters/node/config.js';
import { HISTORY_FILE_NAME } from '../../host-agent/metrics/history-file.js';
import { freePort } from './support/ports.js';

const ADMIN = { username: 'ws-admin', password: 'ws-password-123' };

interface Client {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Resolves with the open client, or rejects with the HTTP status of a refused upgrade. */
function connect(url: string, headers: Record<string, string>, origin?: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, ...(origin ? { origin } : {}) });
    const messages: any[] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => r({ code, reason: reason.toString() })),
    );
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    ws.once('open', () => resolve({ ws, messages, closed }));
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })),
    );
    ws.once('error', (err) => reject(err));
  });
}

async function until<T>(fn: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('WebSocket push channel (real server, ws clients)', () => {
  let dir: string;
  let server: PanelServer;
  let base: string; // http://127.0.0.1:PORT/
  let cookie: string;
  let csrf: string;
  let bearer: string;
  const clients: Client[] = [];

  const wsUrl = () => base.replace(/^http/, 'ws') + 'ws';
  const origin = () => base.replace(/\/$/, '');
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(new URL(path.replace(/^\//, ''), base), {
      method,
      headers: { cookie, 'x-csrf-token': csrf, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return res.json() as Promise<{ success: boolean; msg: string; obj: any }>;
  };
  const open = async () => {
    const c = await connect(wsUrl(), { cookie }, origin());
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'panel-ws-e2e-'));
    server = new PanelServer(
      {
        dataDir: dir,
        dbUrl: `file:${join(dir, 'panel.db')}`,
        overrides: { webListen: '127.0.0.1', webPort: 0, subPort: 0 },
        overrideSources: {},
        adminUsername: ADMIN.username,
        adminPassword: ADMIN.password,
        coreBin: join(dir, 'no-core-here'),
        coreApiPort: await freePort(),
        logLevel: 'error',
        panelVersion: panelVersion(),
      },
      createLogger('error'),
      () => {},
    );
    await server.start();
    base = server.panelUrl;
    const login = await fetch(new URL('login', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    expect((await login.json()).success).toBe(true);
    cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    csrf = (await (await fetch(new URL('csrf-token', base), { headers: { cookie } })).json()).obj;
    bearer = (await api('POST', '/panel/setting/apiTokens/create', { name: 'ws-e2e' })).obj.token;
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.ws.terminate();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a session cookie from the panel origin and pushes status within 3 s', async () => {
    const started = Date.now();
    const c = await open();
    const status = await until(() => c.messages.find((m) => m.type === 'status'), 3000);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(Object.keys(status.data).sort()).toEqual([
      'core',
      'cpu',
      'disk',
      'load',
      'mem',
      'netIO',
      'netTraffic',
      'panelUptime',
      'panelVersion',
      'swap',
      'tcpCount',
      'udpCount',
      'uptime',
    ]);
    expect(status.data.uptime).toBeGreaterThan(0); // read from this machine's /proc/uptime
    expect(status.data.panelVersion).toBe(`v${panelVersion()}`);
    expect(status.data.mem.total).toBeGreaterThan(0);
    expect(status.data.core.state).not.toBe('running'); // no core binary here
    // And the next one arrives about 2 s later.
    const n = c.messages.filter((m) => m.type === 'status').length;
    await until(() => c.messages.filter((m) => m.type === 'status').length > n, 3000);
  });

  it('refuses a Bearer token alone and a foreign Origin', async () => {
    await expect(connect(wsUrl(), { authorization: `Bearer ${bearer}` }, origin())).rejects.toMatchObject({
      status: 404,
    });
    await expect(connect(wsUrl(), {}, origin())).rejects.toMatchObject({ status: 404 });
    await expect(connect(wsUrl(), { cookie }, 'http://evil.example')).rejects.toMatchObject({ status: 403 });
    await expect(connect(wsUrl(), { authorization: `Bearer ${bearer}` })).rejects.toMatchObject({ status: 404 });
    // The refusals do not leave connections behind in the hub.
    expect(server.services.push.size).toBe(clients.length);
  });

  it('accepts a session cookie without an Origin header (a script or CLI) and pushes status', async () => {
    const c = await connect(wsUrl(), { cookie });
    clients.push(c);
    const status = await until(() => c.messages.find((m) => m.type === 'status'), 3000);
    expect(status.data.panelVersion).toBe(`v${panelVersion()}`);
  });

  it('sends exactly one invalidate for clients when a client is added through the API', async () => {
    const inbound = await api('POST', '/panel/api/inbounds/add', {
      remark: 'ws-e2e',
      enable: true,
      listen: '127.0.0.1',
      port: await freePort(),
      protocol: 'vless',
      expiryTime: 0,
      total: 0,
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'none' },
      sniffing: {},
    });
    expect(inbound.success, inbound.msg).toBe(true);
    const c = await open();
    await new Promise((r) => setTimeout(r, 400)); // past any merge window of the inbound add
    const before = c.messages.length;
    const added = await api('POST', '/panel/api/clients/add', {
      client: { email: 'ws-e2e@example', enable: true },
      inboundIds: [inbound.obj.id],
    });
    expect(added.success, added.msg).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    const inv = c.messages.slice(before).filter((m) => m.type === 'invalidate' && m.resource === 'clients');
    expect(inv).toEqual([{ type: 'invalidate', resource: 'clients' }]);
  });

  it('announces a panel restart and closes the connection with 1001', async () => {
    const c = await open();
    const r = await api('POST', '/panel/setting/restartPanel');
    expect(r.success).toBe(true);
    const note = await until(() => c.messages.find((m) => m.type === 'notification'), 2000);
    expect(note).toMatchObject({ type: 'notification', title: 'Panel restart', severity: 'info' });
    expect(typeof note.body).toBe('string');
    const closed = await c.closed;
    expect(closed.code).toBe(1001);
    // The panel comes back (port 0: a new port) and the channel works again.
    await until(() => (server.panelUrl !== base ? server.panelUrl : undefined), 10_000);
    base = server.panelUrl;
    const again = await open();
    await until(() => again.messages.find((m) => m.type === 'status'), 3000);
  }, 20_000);

  it('closes every connection with 1001 on a graceful stop and saves the history', async () => {
    const a = await open();
    const b = await open();
    const started = Date.now();
    await server.stop();
    expect((await a.closed).code).toBe(1001);
    expect((await b.closed).code).toBe(1001);
    expect(Date.now() - started).toBeLessThan(2000); // open WebSockets do not hold the listener's close
    expect(existsSync(join(dir, HISTORY_FILE_NAME))).toBe(true);
    server = undefined as unknown as PanelServer;
  });
});
