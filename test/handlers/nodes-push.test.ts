// The node pusher on libsql and PostgreSQL: client changes on the central panel reach a second real panel (the
// node) through its client API, mapped by inbound tag; deletions, detaches and renames converge; tombstones keep
// a deleted client deleted; a paused node is skipped and resynced on resume; failures retry a bounded number of
// times; a bulk create lands in one batch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { startRemotePanel, type RemotePanel } from './nodes-remote.js';

const vless = (port: number, extra: Record<string, unknown> = {}) => ({
  port,
  protocol: 'vless',
  settings: { decryption: 'none' },
  streamSettings: { network: 'tcp', security: 'none' },
  ...extra,
});

describe.each(testDatabases())('node pusher on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let remote: RemotePanel;
  let rs: Session;
  let nodeId = 0;
  let nodeIb = 0; // central inbound bound to the node (n<id>-inbound-32001)
  let localIb = 0; // central local inbound
  let orphanIb = 0; // central inbound bound to the node with no counterpart on the node
  let remoteIb = 0; // the node's inbound-32001
  let remoteOther = 0; // a node inbound the central panel does not manage
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const rpost = (path: string, body?: unknown) => call(remote.t, 'POST', path, body, rs);
  const remoteClient = async (email: string) => {
    const r = await call(remote.t, 'GET', `/panel/api/clients/get/${encodeURIComponent(email)}`, undefined, rs);
    return r.json.success ? { ...r.json.obj.client, inboundIds: r.json.obj.inboundIds } : null;
  };
  const settle = () => t.services.nodePusher.idle();

  beforeAll(async () => {
    remote = await startRemotePanel(db);
    rs = await login(remote.t);
    t = await createTestApp(db, {
      deps: {
        http: createGuardedFetch(),
        pusherOptions: { coalesceMs: 5, baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 3 },
      },
    });
    s = await login(t);
    t.services.nodePusher.attach(t.events);
    remoteIb = (await rpost('/panel/api/inbounds/add', vless(32001))).json.obj.id;
    remoteOther = (await rpost('/panel/api/inbounds/add', vless(32009))).json.obj.id;
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
    const ib = (await post('/panel/api/inbounds/add', vless(32001, { nodeId }))).json.obj;
    expect(ib.tag).toBe(`n${nodeId}-inbound-32001`);
    nodeIb = ib.id;
    localIb = (await post('/panel/api/inbounds/add', vless(32002))).json.obj.id;
  });
  afterAll(async () => {
    await t?.services.nodePusher.stop();
    await t?.close();
    await remote?.close();
  });

  it('pushes a new client attached to a node inbound, with its identity and limits, over Bearer', async () => {
    remote.seen.length = 0;
    const add = await post('/panel/api/clients/add', {
      client: {
        email: 'alice',
        totalGB: 5_000_000,
        expiryTime: t.clock.now() + 86_400_000,
        limitIp: 2,
        comment: 'hi',
        group: 'g1',
      },
      inboundIds: [nodeIb, localIb],
    });
    expect(add.json.success).toBe(true);
    await settle();
    const r = await remoteClient('alice');
    expect(r).toMatchObject({
      email: 'alice',
      uuid: add.json.obj.uuid,
      subId: add.json.obj.subId,
      totalGB: 5_000_000,
      limitIp: 2,
      comment: 'hi',
      group: 'g1',
      enable: true,
      inboundIds: [remoteIb],
    });
    expect(remote.seen.length).toBeGreaterThan(0);
    expect(remote.seen.every((x) => x.auth === `Bearer ${remote.token}`)).toBe(true);
    expect(remote.seen.map((x) => x.path)).toContain('/panel/api/clients/add');
  });

  it('does not push clients that only use local inbounds', async () => {
    await post('/panel/api/clients/add', { client: { email: 'local-bob' }, inboundIds: [localIb] });
    await settle();
    expect(await remoteClient('local-bob')).toBeNull();
  });

  it('pushes updates (fields and enable) to the node', async () => {
    expect(
      (await post('/panel/api/clients/update/alice', { email: 'alice', comment: 'changed', enable: false, totalGB: 7 }))
        .json.success,
    ).toBe(true);
    await settle();
    expect(await remoteClient('alice')).toMatchObject({
      comment: 'changed',
      enable: false,
      totalGB: 7,
      inboundIds: [remoteIb],
    });
  });

  it('removes a client from the node when it is detached from the node inbound, and re-adds it on attach', async () => {
    expect((await post('/panel/api/clients/alice/detach', { inboundIds: [nodeIb] })).json.success).toBe(true);
    await settle();
    expect(await remoteClient('alice')).toBeNull();
    expect((await post('/panel/api/clients/alice/attach', { inboundIds: [nodeIb] })).json.success).toBe(true);
    await settle();
    expect(await remoteClient('alice')).toMatchObject({ comment: 'changed', inboundIds: [remoteIb] });
  });

  it('leaves node inbounds it does not manage alone (detach only the managed ones)', async () => {
    // Someone attached alice to another inbound directly on the node.
    expect((await rpost('/panel/api/clients/alice/attach', { inboundIds: [remoteOther] })).json.success).toBe(true);
    await post('/panel/api/clients/alice/detach', { inboundIds: [nodeIb] });
    await settle();
    expect(await remoteClient('alice')).toMatchObject({ inboundIds: [remoteOther] });
    await post('/panel/api/clients/alice/attach', { inboundIds: [nodeIb] });
    await settle();
    expect((await remoteClient('alice')).inboundIds.sort()).toEqual([remoteIb, remoteOther].sort());
    await rpost('/panel/api/clients/alice/detach', { inboundIds: [remoteOther] });
  });

  it('follows a rename (old email removed, new one added) and a delete', async () => {
    expect((await post('/panel/api/clients/update/alice', { email: 'alice2', comment: 'renamed' })).json.success).toBe(
      true,
    );
    await settle();
    expect(await remoteClient('alice')).toBeNull();
    expect(await remoteClient('alice2')).toMatchObject({ comment: 'renamed', inboundIds: [remoteIb] });
    expect((await post('/panel/api/clients/del/alice2')).json.success).toBe(true);
    await settle();
    expect(await remoteClient('alice2')).toBeNull();
  });

  it('a stale change for a deleted client never resurrects it; a full resync deletes tombstoned emails only', async () => {
    await post('/panel/api/clients/add', { client: { email: 'carol' }, inboundIds: [nodeIb] });
    await settle();
    expect(await remoteClient('carol')).not.toBeNull();
    // Delete with the pusher unable to see it (paused node), then replay an old "carol changed" batch.
    await post(`/panel/api/nodes/setEnable/${nodeId}`, { enable: false });
    await post('/panel/api/clients/del/carol');
    await settle();
    expect(await remoteClient('carol')).not.toBeNull(); // paused: not pushed yet
    // A client created on the node itself inside the managed inbound, never known to the central panel.
    expect(
      (await rpost('/panel/api/clients/add', { client: { email: 'node-native' }, inboundIds: [remoteIb] })).json
        .success,
    ).toBe(true);
    await post(`/panel/api/nodes/setEnable/${nodeId}`, { enable: true }); // resume → full resync
    await settle();
    expect(await remoteClient('carol')).toBeNull(); // tombstoned here → deleted there
    expect(await remoteClient('node-native')).not.toBeNull(); // never ours → left alone
    t.services.nodePusher.enqueue(nodeId, new Set(['carol']));
    await settle();
    expect(await remoteClient('carol')).toBeNull();
  });

  it('skips a paused node and resyncs everything when it is enabled again', async () => {
    await post(`/panel/api/nodes/setEnable/${nodeId}`, { enable: false });
    await post('/panel/api/clients/add', { client: { email: 'dave' }, inboundIds: [nodeIb] });
    await settle();
    expect(await remoteClient('dave')).toBeNull();
    await post(`/panel/api/nodes/setEnable/${nodeId}`, { enable: true });
    await settle();
    expect(await remoteClient('dave')).toMatchObject({ inboundIds: [remoteIb] });
  });

  it('pushes a bulk create of 300 clients in one batch', async () => {
    remote.seen.length = 0;
    const items = Array.from({ length: 300 }, (_, i) => ({ client: { email: `bulk-${i}` }, inboundIds: [nodeIb] }));
    const r = await post('/panel/api/clients/bulkCreate', items);
    expect(r.json.success).toBe(true);
    await settle();
    const list = (await call(remote.t, 'GET', '/panel/api/clients/list', undefined, rs)).json.obj;
    expect(list.filter((c: any) => c.email.startsWith('bulk-') && c.inboundIds.includes(remoteIb)).length).toBe(300);
    // One inbounds/list and one clients/list read for the whole batch.
    expect(remote.seen.filter((x) => x.path === '/panel/api/clients/list').length).toBe(1);
    // New clients of a big batch go in one bulkCreate, not 300 adds.
    expect(remote.seen.filter((x) => x.path === '/panel/api/clients/bulkCreate').length).toBe(1);
    expect(remote.seen.filter((x) => x.path === '/panel/api/clients/add').length).toBe(0);
  });

  it('retries a failing push a bounded number of times, keeps the error, then succeeds once fixed', async () => {
    // The node's host holds the port: the node refuses the inbound, so its client cannot be placed either.
    remote.t.portProbe.taken.add('tcp/32005');
    orphanIb = (await post('/panel/api/inbounds/add', vless(32005, { nodeId }))).json.obj.id;
    await post('/panel/api/clients/add', { client: { email: 'erin' }, inboundIds: [orphanIb] });
    await settle();
    const st = t.services.nodePusher.stats()[nodeId]!;
    expect(st.dropped).toBeGreaterThan(0);
    expect(st.lastError).toMatch(/port 32005 is already in use/);
    expect(st.lastError).toMatch(/erin: inbound 'n\d+-inbound-32005'.*not on the node/);
    expect(await remoteClient('erin')).toBeNull();
    // The port is freed on the node; the next change places the inbound, then the client.
    remote.t.portProbe.taken.delete('tcp/32005');
    await post('/panel/api/clients/update/erin', { email: 'erin', comment: 'now' });
    await settle();
    const remoteIbs = (await call(remote.t, 'GET', '/panel/api/inbounds/list', undefined, rs)).json.obj;
    const placed = remoteIbs.find((i: any) => i.port === 32005);
    expect(placed).toMatchObject({ tag: 'inbound-32005', protocol: 'vless' });
    expect(await remoteClient('erin')).toMatchObject({ comment: 'now', inboundIds: [placed.id] });
    expect(t.services.nodePusher.stats()[nodeId]!.lastError).toBe('');
  });

  it('never sends anything to a node whose address is private when allowPrivateAddress is off', async () => {
    await post(`/panel/api/nodes/update/${nodeId}`, {
      name: 'edge',
      scheme: 'http',
      address: '127.0.0.1',
      port: remote.port,
      allowPrivateAddress: false,
    });
    await settle(); // the retarget resync fails (refused) and gives up
    remote.seen.length = 0;
    await post('/panel/api/clients/add', { client: { email: 'frank' }, inboundIds: [nodeIb] });
    await settle();
    expect(remote.seen).toEqual([]);
    expect(t.services.nodePusher.stats()[nodeId]!.lastError).toMatch(/refused/);
  });
});
