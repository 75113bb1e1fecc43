// Nodes API on libsql and PostgreSQL against a second real panel on a local port: CRUD with a write-only
// apiToken, bad input changing nothing, probes (saved and unsaved) through the guarded fetch, refusal of a loopback
// target without allowPrivateAddress, history rings, roll-ups, delete leaving bound inbounds in place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { startRemotePanel, type RemotePanel } from './nodes-remote.js';

const N = '/panel/api/nodes';

describe.each(testDatabases())('nodes API on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let remote: RemotePanel;
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const get = (path: string) => call(t, 'GET', path, undefined, s);
  const nodeBody = (extra: Record<string, unknown> = {}) => ({
    name: 'edge-1',
    remark: 'first',
    scheme: 'http',
    address: '127.0.0.1',
    port: remote.port,
    basePath: '/',
    apiToken: remote.token,
    enable: true,
    allowPrivateAddress: true,
    ...extra,
  });
  const snapshot = async () => JSON.stringify((await get(`${N}/list`)).json.obj);

  beforeAll(async () => {
    remote = await startRemotePanel(db);
    t = await createTestApp(db, { deps: { http: createGuardedFetch() } });
    s = await login(t);
  });
  afterAll(async () => {
    await t?.close();
    await remote?.close();
  });

  it('starts empty and refuses bad input without changing anything', async () => {
    expect((await get(`${N}/list`)).json).toEqual({ success: true, msg: '', obj: [] });
    const cases: [Record<string, unknown>, RegExp][] = [
      [nodeBody({ name: '' }), /^name: /],
      [nodeBody({ name: undefined }), /^name: /],
      [nodeBody({ address: 'http://example.com' }), /^address: /],
      [nodeBody({ address: 'a b' }), /^address: /],
      [nodeBody({ port: 0 }), /^port: /],
      [nodeBody({ port: 70000 }), /^port: /],
      [nodeBody({ port: 'x' }), /^port: /],
      [nodeBody({ scheme: 'ftp' }), /^scheme: /],
      [nodeBody({ basePath: '/a b/' }), /^basePath: /],
      [nodeBody({ basePath: '/../' }), /^basePath: /],
      [nodeBody({ apiToken: 'has space' }), /^apiToken: /],
      [nodeBody({ enable: 'maybe' }), /^enable: /],
      [nodeBody({ apiToken: '' }), /^apiToken: is required/],
    ];
    for (const [body, msg] of cases) {
      const r = await post(`${N}/add`, body);
      expect(r.status).toBe(200);
      expect(r.json.success, JSON.stringify(body)).toBe(false);
      expect(r.json.msg).toMatch(msg);
    }
    const malformed = await call(t, 'POST', `${N}/add`, '{"name":', s);
    expect(malformed.json.success).toBe(false);
    expect((await get(`${N}/list`)).json.obj).toEqual([]);
  });

  let id = 0;

  it('adds a node; list and get never return the stored apiToken', async () => {
    const r = await post(`${N}/add`, nodeBody({ address: ' 127.0.0.1 ', basePath: '' }));
    expect(r.json.success).toBe(true);
    const n = r.json.obj;
    id = n.id;
    expect(n).toMatchObject({
      name: 'edge-1',
      remark: 'first',
      scheme: 'http',
      address: '127.0.0.1',
      port: remote.port,
      basePath: '/',
      enable: true,
      allowPrivateAddress: true,
      status: 'unknown',
      lastHeartbeat: 0,
      apiToken: '',
      hasApiToken: true,
      inboundCount: 0,
      clientCount: 0,
      onlineCount: 0,
      depletedCount: 0,
      createdAt: Math.floor(t.clock.now() / 1000),
      updatedAt: Math.floor(t.clock.now() / 1000),
    });
    for (const path of [`${N}/list`, `${N}/get/${id}`]) {
      const res = await get(path);
      expect(res.json.success).toBe(true);
      expect(res.text).not.toContain(remote.token);
    }
    expect((await get(`${N}/get/${id}`)).json.obj.hasApiToken).toBe(true);
    expect(t.emitted.some((e) => e.name === 'nodes.changed' && (e.payload as any).action === 'add')).toBe(true);
  });

  it('refuses a duplicate name, unknown ids and bad ids', async () => {
    const before = await snapshot();
    const dup = await post(`${N}/add`, nodeBody({ name: 'EDGE-1' }));
    expect(dup.json).toMatchObject({ success: false });
    expect(dup.json.msg).toMatch(/already exists/);
    for (const [method, path] of [
      ['GET', `${N}/get/999`],
      ['POST', `${N}/del/999`],
      ['POST', `${N}/probe/999`],
      ['GET', `${N}/get/abc`],
      ['GET', `${N}/get/0`],
    ] as const) {
      const r = await call(t, method, path, undefined, s);
      expect(r.json.success, path).toBe(false);
    }
    expect((await post(`${N}/update/999`, nodeBody({ name: 'x' }))).json.msg).toMatch(/node 999 not found/);
    expect((await post(`${N}/setEnable/${id}`, { enable: 'perhaps' })).json.msg).toMatch(/^enable: /);
    expect(await snapshot()).toBe(before);
  });

  it('probes a saved node: online with the remote figures, Bearer token sent, cached on the record', async () => {
    remote.seen.length = 0;
    const r = await post(`${N}/probe/${id}`);
    expect(r.json.success).toBe(true);
    expect(r.json.obj).toMatchObject({
      status: 'online',
      cpuPct: 50,
      memPct: 25,
      panelVersion: 'v0.1.0',
      coreVersion: '1.8.24',
      error: '',
    });
    expect(r.json.obj.latencyMs).toBeGreaterThan(0);
    expect(remote.seen).toEqual([{ path: '/panel/api/server/status', auth: `Bearer ${remote.token}` }]);
    const n = (await get(`${N}/get/${id}`)).json.obj;
    expect(n).toMatchObject({
      status: 'online',
      cpuPct: 50,
      memPct: 25,
      panelVersion: 'v0.1.0',
      coreVersion: '1.8.24',
      lastError: '',
      lastHeartbeat: Math.floor(t.clock.now() / 1000),
    });
    expect(n.latencyMs).toBe(r.json.obj.latencyMs);
  });

  it('keeps per-node cpu/mem history from probes; refuses other metrics and buckets', async () => {
    t.clock.advance(31_000);
    remote.t.host.reading = { ...remote.t.host.reading, cpu: { idle: 80, total: 200 } }; // next sample: 70 % busy
    remote.t.clock.advance(2000);
    await remote.t.services.status.tick();
    expect((await post(`${N}/probe/${id}`)).json.obj.cpuPct).toBe(70);
    const cpu = (await get(`${N}/history/${id}/cpu/2`)).json;
    expect(cpu.success).toBe(true);
    expect(cpu.obj.map((p: any) => p.v)).toEqual([50, 70]);
    const now = Math.floor(t.clock.now() / 1000);
    expect(cpu.obj[1].t).toBe(now - (now % 2));
    const wide = (await get(`${N}/history/${id}/mem/300`)).json.obj;
    expect(wide.length).toBeGreaterThanOrEqual(1);
    expect(wide.every((p: any) => p.v === 25)).toBe(true);
    expect((await get(`${N}/history/${id}/disk/30`)).json).toMatchObject({ success: false });
    expect((await get(`${N}/history/${id}/cpu/7`)).json.msg).toMatch(
      /^bucket: must be one of 2, 30, 60, 120, 180, 300/,
    );
    expect((await get(`${N}/history/${id}/cpu/abc`)).json.success).toBe(false);
    expect((await get(`${N}/history/999/cpu/30`)).json.msg).toMatch(/node 999 not found/);
  });

  it('refuses a loopback target when allowPrivateAddress is off: offline, nothing sent', async () => {
    const up = await post(`${N}/update/${id}`, nodeBody({ allowPrivateAddress: false, apiToken: undefined }));
    expect(up.json.success).toBe(true);
    expect(up.json.obj).toMatchObject({ status: 'unknown', hasApiToken: true, allowPrivateAddress: false });
    expect((await get(`${N}/history/${id}/cpu/2`)).json.obj).toEqual([]); // retargeted: old figures dropped
    remote.seen.length = 0;
    const r = await post(`${N}/probe/${id}`);
    expect(r.json.obj.status).toBe('offline');
    expect(r.json.obj.error).toMatch(/refused.*127\.0\.0\.1.*private/);
    expect(remote.seen).toEqual([]);
    const n = (await get(`${N}/get/${id}`)).json.obj;
    expect(n.status).toBe('offline');
    expect(n.lastError).toMatch(/refused/);
    // A name that resolves to loopback is refused too.
    const named = await post(`${N}/test`, {
      scheme: 'http',
      address: 'localhost',
      port: remote.port,
      apiToken: remote.token,
    });
    expect(named.json.obj.status).toBe('offline');
    expect(named.json.obj.error).toMatch(/refused/);
    expect(remote.seen).toEqual([]);
    // The kept token still works once private targets are allowed again.
    await post(`${N}/update/${id}`, nodeBody({ apiToken: '' }));
    expect((await post(`${N}/probe/${id}`)).json.obj.status).toBe('online');
  });

  it('tests connection details without saving: wrong token is an error, a closed port is offline', async () => {
    const before = await snapshot();
    const good = await post(`${N}/test`, {
      scheme: 'http',
      address: '127.0.0.1',
      port: remote.port,
      apiToken: remote.token,
      allowPrivateAddress: true,
    });
    expect(good.json.obj).toMatchObject({ status: 'online', cpuPct: 70 });
    const bad = await post(`${N}/test`, {
      scheme: 'http',
      address: '127.0.0.1',
      port: remote.port,
      apiToken: 'wrong-token',
      allowPrivateAddress: true,
    });
    expect(bad.json.obj.status).toBe('error');
    expect(bad.json.obj.error).toMatch(/401.*apiToken/);
    const path = await post(`${N}/test`, {
      scheme: 'http',
      address: '127.0.0.1',
      port: remote.port,
      basePath: '/nope/',
      apiToken: remote.token,
      allowPrivateAddress: true,
    });
    expect(path.json.obj.status).toBe('error');
    const tls = await post(`${N}/test`, {
      scheme: 'https',
      address: '127.0.0.1',
      port: remote.port,
      apiToken: remote.token,
      allowPrivateAddress: true,
    });
    expect(tls.json.obj.status).toBe('offline');
    const closed = await post(`${N}/test`, {
      scheme: 'http',
      address: '127.0.0.1',
      port: 1,
      apiToken: 'x',
      allowPrivateAddress: true,
    });
    expect(closed.json.obj.status).toBe('offline');
    expect((await post(`${N}/test`, { address: '127.0.0.1' })).json.msg).toMatch(/^port: /);
    expect(await snapshot()).toBe(before);
  });

  it('heartbeat probes enabled nodes only; setEnable pauses and resumes', async () => {
    const paused = (await post(`${N}/add`, nodeBody({ name: 'edge-2', enable: false, apiToken: '' }))).json;
    expect(paused.success).toBe(true);
    expect(paused.obj.hasApiToken).toBe(false);
    expect((await post(`${N}/setEnable/${paused.obj.id}`, { enable: true })).json.msg).toMatch(/no apiToken/);
    remote.seen.length = 0;
    expect(await t.services.nodes.heartbeat()).toEqual({ probed: 1, online: 1 });
    expect(remote.seen.length).toBe(1);
    expect((await post(`${N}/setEnable/${id}`, { enable: false })).json.success).toBe(true);
    expect((await get(`${N}/get/${id}`)).json.obj.enable).toBe(false);
    expect(await t.services.nodes.heartbeat()).toEqual({ probed: 0, online: 0 });
    const form = new URLSearchParams({ enable: 'true' });
    expect((await call(t, 'POST', `${N}/setEnable/${id}`, form, s)).json.success).toBe(true);
    expect((await get(`${N}/get/${id}`)).json.obj.enable).toBe(true);
    expect((await post(`${N}/del/${paused.obj.id}`)).json.success).toBe(true);
  });

  it('rolls up inbounds, clients, online and depleted per node; delete leaves bound inbounds in place', async () => {
    const ib = await post('/panel/api/inbounds/add', {
      port: 31001,
      protocol: 'vless',
      nodeId: id,
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'none' },
    });
    expect(ib.json.success).toBe(true);
    const local = await post('/panel/api/inbounds/add', {
      port: 31002,
      protocol: 'vless',
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'none' },
    });
    const ibId = ib.json.obj.id;
    const now = t.clock.now();
    for (const [email, extra] of [
      ['a@n', {}],
      ['b@n', {}],
      ['c@n', { expiryTime: now - 1000 }],
    ] as const) {
      expect(
        (await post('/panel/api/clients/add', { client: { email, ...extra }, inboundIds: [ibId, local.json.obj.id] }))
          .json.success,
      ).toBe(true);
    }
    await post('/panel/api/clients/add', { client: { email: 'local-only' }, inboundIds: [local.json.obj.id] });
    await t.store.traffic.enforce(now, 'all'); // c@n depleted
    await t.store.traffic.applyDeltas(
      { clients: [{ email: 'a@n', up: 10, down: 10 }], inbounds: [], outbounds: [] },
      now,
    );
    const n = (await get(`${N}/get/${id}`)).json.obj;
    expect(n).toMatchObject({ inboundCount: 1, clientCount: 3, onlineCount: 1, depletedCount: 1 });
    const listed = (await get(`${N}/list`)).json.obj.find((x: any) => x.id === id);
    expect(listed).toMatchObject({ inboundCount: 1, clientCount: 3, onlineCount: 1, depletedCount: 1 });

    expect((await post(`${N}/del/${id}`)).json.success).toBe(true);
    expect((await get(`${N}/get/${id}`)).json.success).toBe(false);
    expect((await get(`${N}/history/${id}/cpu/30`)).json.success).toBe(false);
    const kept = (await get(`/panel/api/inbounds/get/${ibId}`)).json.obj;
    expect(kept.nodeId).toBe(id);
  });

  it('answers 404 to requests without credentials', async () => {
    const r = await call(t, 'GET', `${N}/list`);
    expect(r.status).toBe(404);
  });
});
