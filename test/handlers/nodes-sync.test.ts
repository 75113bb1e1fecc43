// Nodes both ways, on libsql and PostgreSQL, with a second real panel as the node: bound inbounds are created,
// updated, moved and deleted there; the node's client counters, onlines and last-online come back through the
// per-(node, email) baselines without double counting (repeated pulls, central restart, node counter reset,
// failed and late pulls); quotas are enforced across nodes and a central reset reaches the node; deleted
// clients are never resurrected; the node is reconciled when it comes back online; its history is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { HttpFetchError, type HttpClient } from '../../domain/ports/http.js';
import { NodePuller } from '../../domain/nodes/puller.js';
import { NodeLocks } from '../../domain/nodes/locks.js';
import { NodesService } from '../../domain/nodes/service.js';
import { startRemotePanel, type RemotePanel } from './nodes-remote.js';

const vless = (port: number, extra: Record<string, unknown> = {}) => ({
  port,
  protocol: 'vless',
  settings: { decryption: 'none' },
  streamSettings: { network: 'tcp', security: 'none' },
  ...extra,
});

/** The guarded fetch with a switch: `down` fails every call as an unreachable node would; `delayMs` slows them. */
function switchableHttp() {
  const inner = createGuardedFetch();
  /** `failAfter`: that many more calls succeed, then every call fails (a node dying part-way through a batch). */
  const sw = { down: false, delayMs: 0, failAfter: -1 };
  const http: HttpClient = {
    async request(req) {
      if (sw.delayMs) await new Promise((r) => setTimeout(r, sw.delayMs));
      if (sw.failAfter === 0) sw.down = true;
      if (sw.failAfter > 0) sw.failAfter--;
      if (sw.down) throw new HttpFetchError('connect ECONNREFUSED (test switch)', 'network');
      return inner.request(req);
    },
  };
  return { http, sw };
}

describe.each(testDatabases())('nodes both ways on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let remote: RemotePanel;
  let rs: Session;
  let nodeId = 0;
  const net = switchableHttp();
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const get = (path: string) => call(t, 'GET', path, undefined, s);
  const rpost = (path: string, body?: unknown) => call(remote.t, 'POST', path, body, rs);
  const remoteInbounds = async () =>
    (await call(remote.t, 'GET', '/panel/api/inbounds/list', undefined, rs)).json.obj as any[];
  const remoteClient = async (email: string) => {
    const r = await call(remote.t, 'GET', `/panel/api/clients/get/${encodeURIComponent(email)}`, undefined, rs);
    return r.json.success ? { ...r.json.obj.client, inboundIds: r.json.obj.inboundIds } : null;
  };
  const centralTraffic = async (email: string) => {
    const r = await get(`/panel/api/clients/traffic/${encodeURIComponent(email)}`);
    return r.json.success ? { up: r.json.obj.up, down: r.json.obj.down } : null;
  };
  /** Sets the node's cumulative counters of a client (what the node's own accounting shows). */
  const nodeCounts = async (email: string, up: number, down: number) => {
    expect(
      (await rpost(`/panel/api/clients/updateTraffic/${encodeURIComponent(email)}`, { upload: up, download: down }))
        .json.success,
    ).toBe(true);
  };
  const settle = () => t.services.nodePusher.idle();
  const pull = async () => {
    const r = await t.services.nodePuller.pull();
    await settle();
    return r;
  };
  let ib = 0; // the central inbound bound to the node

  beforeAll(async () => {
    remote = await startRemotePanel(db);
    rs = await login(remote.t);
    t = await createTestApp(db, {
      deps: { http: net.http, pusherOptions: { coalesceMs: 5, baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 2 } },
    });
    s = await login(t);
    t.services.nodePusher.attach(t.events);
    nodeId = (
      await post('/panel/api/nodes/add', {
        name: 'edge',
        scheme: 'http',
        address: '127.0.0.1',
        port: remote.port,
        apiToken: remote.token,
        allowPrivateAddress: true,
      })
    ).json.obj.id;
    expect((await post(`/panel/api/nodes/probe/${nodeId}`)).json.obj.status).toBe('online');
    await settle();
  });
  afterAll(async () => {
    await t?.services.nodePusher.stop();
    await t?.close();
    await remote?.close();
  });

  it('creates a bound inbound on the node with its configuration; the local core never runs it', async () => {
    // A node inbound the central panel never bound: must be left alone throughout.
    expect((await rpost('/panel/api/inbounds/add', vless(33999, { remark: 'node-native' }))).json.success).toBe(true);
    const r = await post(
      '/panel/api/inbounds/add',
      vless(33001, { nodeId, remark: 'edge-1', sniffing: { enabled: true, destOverride: ['http', 'tls'] } }),
    );
    expect(r.json.success).toBe(true);
    ib = r.json.obj.id;
    await settle();
    const on = (await remoteInbounds()).find((x) => x.port === 33001);
    expect(on).toMatchObject({
      tag: 'inbound-33001',
      protocol: 'vless',
      remark: 'edge-1',
      enable: true,
      nodeId: null,
      sniffing: { enabled: true, destOverride: ['http', 'tls'] },
      streamSettings: { network: 'tcp', security: 'none' },
    });
    const cfg = (await t.services.core.configJson()) as { inbounds: { tag: string }[] };
    expect(cfg.inbounds.map((i) => i.tag)).not.toContain(`n${nodeId}-inbound-33001`);
  });

  it('pushes a client added to it, and inbound updates and enable/disable', async () => {
    expect(
      (await post('/panel/api/clients/add', { client: { email: 'ann', totalGB: 10_000 }, inboundIds: [ib] })).json
        .success,
    ).toBe(true);
    await settle();
    const remoteIb = (await remoteInbounds()).find((x) => x.port === 33001)!;
    expect(await remoteClient('ann')).toMatchObject({ email: 'ann', totalGB: 10_000, inboundIds: [remoteIb.id] });

    expect(
      (await post(`/panel/api/inbounds/update/${ib}`, vless(33001, { nodeId, remark: 'edge-renamed' }))).json.success,
    ).toBe(true);
    await settle();
    expect((await remoteInbounds()).find((x) => x.id === remoteIb.id)).toMatchObject({
      remark: 'edge-renamed',
      enable: true,
    });
    expect((await post(`/panel/api/inbounds/setEnable/${ib}`, { enable: false })).json.success).toBe(true);
    await settle();
    expect((await remoteInbounds()).find((x) => x.id === remoteIb.id)).toMatchObject({ enable: false });
    expect((await post(`/panel/api/inbounds/setEnable/${ib}`, { enable: true })).json.success).toBe(true);
    await settle();
    expect((await remoteInbounds()).find((x) => x.id === remoteIb.id)).toMatchObject({ enable: true });
    // Still the same remote inbound, with its client.
    expect((await remoteClient('ann')).inboundIds).toEqual([remoteIb.id]);
    // One client's change reads that client on the node, not the node's whole client list.
    remote.seen.length = 0;
    expect(
      (await post('/panel/api/clients/update/ann', { email: 'ann', totalGB: 10_000, comment: 'one' })).json.success,
    ).toBe(true);
    await settle();
    expect(await remoteClient('ann')).toMatchObject({ comment: 'one' });
    const paths = remote.seen.map((x) => x.path);
    expect(paths).toContain('/panel/api/clients/get/ann');
    expect(paths).not.toContain('/panel/api/clients/list');
    expect(paths).not.toContain('/panel/api/inbounds/list/slim');
  });

  it('a change to a local inbound sends nothing to the node', async () => {
    const local = (await post('/panel/api/inbounds/add', vless(33500))).json.obj.id;
    await settle();
    remote.seen.length = 0;
    expect(
      (await post(`/panel/api/inbounds/update/${local}`, vless(33500, { remark: 'local-edit' }))).json.success,
    ).toBe(true);
    await post(`/panel/api/inbounds/setEnable/${local}`, { enable: false });
    await settle();
    expect(remote.seen).toEqual([]);
    await post(`/panel/api/inbounds/del/${local}`);
    await settle();
  });

  it('moves the inbound with its clients when nodeId changes (node -> local -> node)', async () => {
    expect(
      (await post(`/panel/api/inbounds/update/${ib}`, vless(33001, { nodeId: null, remark: 'now-local' }))).json
        .success,
    ).toBe(true);
    await settle();
    expect((await remoteInbounds()).find((x) => x.port === 33001)).toBeUndefined();
    expect(await remoteClient('ann')).toBeNull(); // it was only there through that inbound
    const local = (await get(`/panel/api/inbounds/get/${ib}`)).json.obj;
    let cfg = (await t.services.core.configJson()) as { inbounds: { tag: string }[] };
    expect(cfg.inbounds.map((i) => i.tag)).toContain(local.tag);
    const moved = t.emitted
      .filter((e) => e.name === 'clients.changed')
      .map((e) => e.payload as any)
      .at(-1);
    expect(moved).toMatchObject({ action: 'inboundMove', emails: ['ann'] });

    expect(
      (await post(`/panel/api/inbounds/update/${ib}`, vless(33001, { nodeId, remark: 'back' }))).json.success,
    ).toBe(true);
    await settle();
    const again = (await remoteInbounds()).find((x) => x.port === 33001);
    expect(again).toMatchObject({ remark: 'back' });
    expect(await remoteClient('ann')).toMatchObject({ inboundIds: [again.id] });
    cfg = (await t.services.core.configJson()) as { inbounds: { tag: string }[] };
    expect(cfg.inbounds.map((i) => i.tag).filter((x) => x.includes('33001'))).toEqual([]);
    expect((await remoteInbounds()).some((x) => x.remark === 'node-native')).toBe(true);
  });

  it('counts node traffic once: repeated pulls add nothing, local and node traffic add up, no reset to zero', async () => {
    await post('/panel/api/clients/updateTraffic/ann', { upload: 100, download: 200 }); // local bytes
    await nodeCounts('ann', 1000, 2000);
    await pull();
    expect(await centralTraffic('ann')).toEqual({ up: 1100, down: 2200 });
    for (let i = 0; i < 3; i++) await pull(); // the reference reset node clients to zero / re-added on every sync
    expect(await centralTraffic('ann')).toEqual({ up: 1100, down: 2200 });
    await nodeCounts('ann', 1500, 2600);
    await pull();
    expect(await centralTraffic('ann')).toEqual({ up: 1600, down: 2800 });
  });

  it('survives a central restart: a new puller over the same database counts from the stored baselines', async () => {
    const fresh = new NodePuller(t.store, net.http, t.clock, new NodeLocks(), t.services.traffic);
    await fresh.pull();
    expect(await centralTraffic('ann')).toEqual({ up: 1600, down: 2800 });
    await nodeCounts('ann', 1600, 2800);
    await fresh.pull();
    expect(await centralTraffic('ann')).toEqual({ up: 1700, down: 3000 });
  });

  it('a node counter that went backwards (reset on the node) counts from zero', async () => {
    await nodeCounts('ann', 50, 70);
    await pull();
    expect(await centralTraffic('ann')).toEqual({ up: 1750, down: 3070 });
  });

  it('an unreachable or slow node loses nothing and counts nothing twice', async () => {
    await nodeCounts('ann', 150, 170);
    net.sw.down = true;
    const failed = await t.services.nodePuller.pull();
    net.sw.down = false;
    expect(failed.errors.map((e) => e.nodeId)).toEqual([nodeId]);
    expect(await centralTraffic('ann')).toEqual({ up: 1750, down: 3070 });
    // A pull past its deadline applies nothing, even when the answer arrives later.
    net.sw.delayMs = 150;
    const slow = new NodePuller(t.store, net.http, t.clock, new NodeLocks(), t.services.traffic, { deadlineMs: 50 });
    expect((await slow.pull()).errors.length).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    net.sw.delayMs = 0;
    expect(await centralTraffic('ann')).toEqual({ up: 1750, down: 3070 });
    await pull();
    expect(await centralTraffic('ann')).toEqual({ up: 1850, down: 3170 });
    await pull();
    expect(await centralTraffic('ann')).toEqual({ up: 1850, down: 3170 });
  });

  it('shows node clients online with lastOnline, and in the node roll-up', async () => {
    // The node's core moves ann's bytes; the node's own tick records it online.
    remote.t.core.stats = [
      { name: 'user>>>ann>>>traffic>>>uplink', value: 10 },
      { name: 'user>>>ann>>>traffic>>>downlink', value: 20 },
    ];
    await remote.t.services.traffic.tick();
    await pull();
    expect((await post('/panel/api/clients/onlines')).json.obj).toContain('ann');
    const last = (await post('/panel/api/clients/lastOnline')).json.obj;
    expect(last.ann).toBeGreaterThan(0);
    expect((await get(`/panel/api/nodes/get/${nodeId}`)).json.obj).toMatchObject({
      inboundCount: 1,
      clientCount: 1,
      onlineCount: 1,
    });
    const stats = t.emitted.filter((e) => e.name === 'traffic.tick').map((e) => e.payload as any);
    expect(stats.some((p) => p.clients.some((c: any) => c.email === 'ann' && c.up === 10 && c.down === 20))).toBe(true);
    expect(t.services.traffic.onlines()).toContain('ann');
    // Offline: its clients are not reported online from it any more.
    net.sw.down = true;
    expect((await post(`/panel/api/nodes/probe/${nodeId}`)).json.obj.status).toBe('offline');
    await pull();
    expect(t.services.traffic.onlines()).not.toContain('ann');
    net.sw.down = false;
    expect((await post(`/panel/api/nodes/probe/${nodeId}`)).json.obj.status).toBe('online');
    await settle();
  });

  it('depletes a client on its node traffic, disables it there, and a central reset re-enables and resets it there', async () => {
    await post('/panel/api/clients/add', { client: { email: 'bea', totalGB: 1000 }, inboundIds: [ib] });
    await settle();
    await nodeCounts('bea', 600, 500);
    await pull();
    expect(await centralTraffic('bea')).toEqual({ up: 600, down: 500 });
    expect((await get('/panel/api/clients/get/bea')).json.obj.client.enable).toBe(false);
    expect(await remoteClient('bea')).toMatchObject({ enable: false });
    expect((await get(`/panel/api/nodes/get/${nodeId}`)).json.obj.depletedCount).toBe(1);

    expect((await post('/panel/api/clients/resetTraffic/bea')).json.success).toBe(true);
    await settle();
    expect((await get('/panel/api/clients/get/bea')).json.obj.client.enable).toBe(true);
    const there = await remoteClient('bea');
    expect(there).toMatchObject({ enable: true });
    expect([there.traffic.up, there.traffic.down]).toEqual([0, 0]);
    expect(await centralTraffic('bea')).toEqual({ up: 0, down: 0 });
    await nodeCounts('bea', 30, 40);
    await pull();
    expect(await centralTraffic('bea')).toEqual({ up: 30, down: 40 });
  });

  it('never resurrects a deleted client: pulls ignore it, a reconcile deletes it on the node', async () => {
    await post('/panel/api/clients/add', { client: { email: 'cid' }, inboundIds: [ib] });
    await settle();
    await post(`/panel/api/nodes/setEnable/${nodeId}`, { enable: false }); // the node does not hear about the delete
    expect((await post('/panel/api/clients/del/cid')).json.success).toBe(true);
    await settle();
    expect(await remoteClient('cid')).not.toBeNull();
    await post(`/panel/api/nodes/setEnable/${nodeId}`, { enable: true });
    await nodeCounts('cid', 5, 5).catch(() => {});
    await pull();
    await settle();
    expect((await get('/panel/api/clients/get/cid')).json.success).toBe(false);
    expect(await centralTraffic('cid')).toBeNull();
    expect(await remoteClient('cid')).toBeNull();
    await t.services.nodePusher.reconcile();
    await pull();
    expect((await get('/panel/api/clients/get/cid')).json.success).toBe(false);
    expect(await remoteClient('cid')).toBeNull();
  });

  it('reconciles a node that comes back online: drift made there while it was away is undone', async () => {
    net.sw.down = true;
    expect((await post(`/panel/api/nodes/probe/${nodeId}`)).json.obj.status).toBe('offline');
    // Meanwhile on the node someone removes ann and edits the inbound.
    await rpost('/panel/api/clients/del/ann');
    const remoteIb = (await remoteInbounds()).find((x) => x.port === 33001)!;
    await rpost(`/panel/api/inbounds/update/${remoteIb.id}`, { ...vless(33001), remark: 'edited-on-node' });
    net.sw.down = false;
    expect((await post(`/panel/api/nodes/probe/${nodeId}`)).json.obj.status).toBe('online');
    await settle();
    expect(await remoteClient('ann')).toMatchObject({ inboundIds: [remoteIb.id] });
    expect((await remoteInbounds()).find((x) => x.id === remoteIb.id)).toMatchObject({ remark: 'back' });
    expect((await remoteInbounds()).some((x) => x.remark === 'node-native')).toBe(true);
  });

  it('a node that dies part-way through a batch, then stays away an hour, converges with nothing lost or resurrected', async () => {
    const remoteIb = (await remoteInbounds()).find((x) => x.port === 33001)!;
    const items = Array.from({ length: 60 }, (_, i) => ({
      client: { email: `h${i}`, totalGB: 1000 },
      inboundIds: [ib],
    }));
    expect((await post('/panel/api/clients/bulkCreate', items)).json.success).toBe(true);
    await settle();
    // 60 quota changes pushed one by one: the node dies after a dozen calls of that batch.
    net.sw.failAfter = 12;
    const adj = await post('/panel/api/clients/bulkAdjust', {
      emails: items.map((x) => x.client.email),
      addDays: 0,
      addBytes: 500,
    });
    expect(adj.json.obj.adjusted).toBe(60);
    await settle();
    expect(t.services.nodePusher.stats()[nodeId]!.lastError).toMatch(/ECONNREFUSED/);
    const partly = (await call(remote.t, 'GET', '/panel/api/clients/list', undefined, rs)).json.obj as any[];
    const done = partly.filter((c) => /^h\d+$/.test(c.email) && c.totalGB === 1500).length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(60);
    expect((await post(`/panel/api/nodes/probe/${nodeId}`)).json.obj.status).toBe('offline');
    // An hour passes; meanwhile clients change here and the node's core keeps counting bea.
    t.clock.advance(3_600_000);
    remote.t.clock.advance(3_600_000);
    expect((await post('/panel/api/clients/del/h0')).json.success).toBe(true);
    expect(
      (await post('/panel/api/clients/update/h1', { email: 'h1', comment: 'while away', totalGB: 1500 })).json.success,
    ).toBe(true);
    const beaBefore = await centralTraffic('bea');
    const beaNode = (await remoteClient('bea')).traffic;
    await nodeCounts('bea', beaNode.up + 700, beaNode.down + 800);
    await t.services.nodePuller.pull(); // skipped: the node is not online
    expect(await centralTraffic('bea')).toEqual(beaBefore);
    // Back: the probe sees it online, which reconciles it; the next pull counts the hour once.
    net.sw.down = false;
    net.sw.failAfter = -1;
    expect((await post(`/panel/api/nodes/probe/${nodeId}`)).json.obj.status).toBe('online');
    await settle();
    await pull();
    await pull();
    expect(await centralTraffic('bea')).toEqual({ up: beaBefore!.up + 700, down: beaBefore!.down + 800 });
    const list = (await call(remote.t, 'GET', '/panel/api/clients/list', undefined, rs)).json.obj as any[];
    const hs = list.filter((c) => /^h\d+$/.test(c.email));
    expect(hs.map((c) => c.email).sort()).toEqual(
      items
        .slice(1)
        .map((x) => x.client.email)
        .sort(),
    );
    expect(hs.every((c) => c.inboundIds.includes(remoteIb.id))).toBe(true);
    expect(list.find((c) => c.email === 'h1')).toMatchObject({ comment: 'while away' });
    expect(hs.every((c) => c.totalGB === 1500)).toBe(true);
    expect((await get('/panel/api/clients/get/h0')).json.success).toBe(false);
  });

  it('deleting the inbound deletes it on the node and emits the client changes it implies', async () => {
    const before = t.emitted.length;
    expect((await post(`/panel/api/inbounds/del/${ib}`)).json.success).toBe(true);
    await settle();
    expect((await remoteInbounds()).find((x) => x.port === 33001)).toBeUndefined();
    expect(await remoteClient('bea')).toBeNull();
    const changed = t.emitted
      .slice(before)
      .filter((e) => e.name === 'clients.changed')
      .map((e) => e.payload as any);
    expect(changed).toContainEqual({ action: 'inboundDel', emails: expect.arrayContaining(['ann', 'bea']) });
    expect((await remoteInbounds()).some((x) => x.remark === 'node-native')).toBe(true);
  });

  it('keeps node cpu/mem history in the database (a new service over it still has it)', async () => {
    await post(`/panel/api/nodes/probe/${nodeId}`);
    const h = (await get(`/panel/api/nodes/history/${nodeId}/cpu/30`)).json.obj;
    expect(h.length).toBeGreaterThan(0);
    expect(h.at(-1).v).toBe(50);
    const again = new NodesService(t.store, net.http, t.clock, t.events);
    expect((await again.history(nodeId, 'mem', 30)).at(-1)!.v).toBe(25);
  });
});
