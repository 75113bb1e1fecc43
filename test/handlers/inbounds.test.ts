import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { createServer, type Server } from 'node:net';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { hostPortProbe } from '../../host-agent/port-probe.js';

const B = '/panel/api/inbounds';
const C = '/panel/api/clients';

const vlessReality = (port: number, extra: Record<string, unknown> = {}) => ({
  port,
  protocol: 'vless',
  remark: `r${port}`,
  settings: { decryption: 'none' },
  streamSettings: { network: 'tcp', security: 'reality', realitySettings: { show: false, dest: 'example.com:443' } },
  sniffing: { enabled: true, destOverride: ['http', 'tls'] },
  ...extra,
});

describe.each(testDatabases())('inbounds API on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let port = 20000;
  const nextPort = () => ++port;
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const get = (path: string) => call(t, 'GET', path, undefined, s);
  const snapshot = async () => JSON.stringify([(await get(`${B}/list`)).json.obj, (await get(`${C}/list`)).json.obj]);
  const events = (name: string) => t.emitted.filter((e) => e.name === name).map((e) => e.payload as any);

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => {
    t.emitted.length = 0;
    t.portProbe.taken.clear();
  });

  it('requires authentication', async () => {
    const r = await call(t, 'GET', `${B}/list`);
    expect(r.status).toBe(404);
    expect(r.text).toBe('');
  });

  it('adds an inbound with objects or JSON strings and returns objects; tag generated; zero clients; one event', async () => {
    const p = nextPort();
    const r = await post(`${B}/add`, {
      ...vlessReality(p),
      settings: JSON.stringify({ decryption: 'none', clients: [{ email: 'ignored@x', id: 'x' }] }),
      streamSettings: JSON.stringify({ network: 'tcp', security: 'tls', externalProxy: [] }),
      sniffing: JSON.stringify({ enabled: false, destOverride: ['http'] }),
      tag: 'operator-tag',
    });
    expect(r.json.success, r.json.msg).toBe(true);
    const ib = r.json.obj;
    expect(ib.tag).toBe(`inbound-${p}`);
    expect(ib.settings).toEqual({ decryption: 'none', clients: [] });
    expect(ib.streamSettings).toEqual({ network: 'tcp', security: 'tls' }); // empty externalProxy omitted
    expect(ib.sniffing).toEqual({ enabled: false }); // destOverride omitted when sniffing is off
    expect(ib.clientStats).toEqual([]);
    expect(ib.up).toBe(0);
    expect(events('inbounds.changed')).toEqual([{ ids: [ib.id], action: 'add' }]);
    // the ignored settings.clients created nothing
    expect((await get(`${C}/get/ignored@x`)).json.success).toBe(false);
    const got = await get(`${B}/get/${ib.id}`);
    expect(got.json.obj.settings.clients).toEqual([]);
  });

  it('accepts a form-encoded add (numbers and booleans as strings)', async () => {
    const p = nextPort();
    const form = new URLSearchParams({
      port: String(p),
      protocol: 'vmess',
      enable: 'false',
      remark: 'form',
      total: '1024',
      expiryTime: '0',
      settings: '{}',
      streamSettings: '{"network":"ws"}',
      sniffing: '{}',
    });
    const r = await call(t, 'POST', `${B}/add`, form, s);
    expect(r.json.success, r.json.msg).toBe(true);
    expect(r.json.obj).toMatchObject({
      port: p,
      protocol: 'vmess',
      enable: false,
      total: 1024,
      streamSettings: { network: 'ws' },
    });
  });

  it('refuses a port held by another inbound with a message naming the port and holder', async () => {
    const p = nextPort();
    const a = (await post(`${B}/add`, vlessReality(p, { remark: 'holder' }))).json.obj;
    const before = await snapshot();
    const r = await post(`${B}/add`, vlessReality(p, { remark: 'second' }));
    expect(r.json.success).toBe(false);
    expect(r.json.msg).toContain(`port ${p} is already used by inbound 'holder' (id ${a.id}`);
    expect(await snapshot()).toBe(before);
    expect(events('inbounds.changed')).toHaveLength(1);
  });

  it('lets a TCP-only and a UDP-only inbound share a number, and distinct listen addresses share a port', async () => {
    const p = nextPort();
    expect((await post(`${B}/add`, vlessReality(p))).json.success).toBe(true);
    const udp = await post(`${B}/add`, { port: p, protocol: 'hysteria2', settings: {}, streamSettings: {} });
    expect(udp.json.success, udp.json.msg).toBe(true);
    expect(udp.json.obj.tag).toBe(`inbound-${p}-udp`);
    const kcp = await post(`${B}/add`, { port: p, protocol: 'vmess', streamSettings: { network: 'kcp' } });
    expect(kcp.json.success).toBe(false);
    expect(kcp.json.msg).toMatch(/udp/);
    const q = nextPort();
    expect((await post(`${B}/add`, vlessReality(q, { listen: '127.0.0.1' }))).json.success).toBe(true);
    expect((await post(`${B}/add`, vlessReality(q, { listen: '127.0.0.2' }))).json.success).toBe(true);
    const wildcard = await post(`${B}/add`, vlessReality(q, { listen: '0.0.0.0' }));
    expect(wildcard.json.success).toBe(false);
  });

  it('refuses a port the host already holds (bind test per transport)', async () => {
    const p = nextPort();
    t.portProbe.taken.add(`tcp/${p}`);
    const before = await snapshot();
    const r = await post(`${B}/add`, vlessReality(p));
    expect(r.json.success).toBe(false);
    expect(r.json.msg).toContain(`port ${p} is already in use on this host (tcp)`);
    expect(await snapshot()).toBe(before);
    // the UDP side of that number is free
    const udp = await post(`${B}/add`, { port: p, protocol: 'wireguard', settings: {} });
    expect(udp.json.success, udp.json.msg).toBe(true);
    expect(t.portProbe.calls.at(-1)).toMatchObject({ port: p, transports: { tcp: false, udp: true } });
  });

  it('with the real host probe, a port held by a socket on this host is refused', async () => {
    const held: Server = await new Promise((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => resolve(srv));
    });
    const p = (held.address() as { port: number }).port;
    const svc = t.services.inbounds as unknown as { probe: unknown };
    const fake = svc.probe;
    svc.probe = hostPortProbe; // the node adapter wires this one
    try {
      const r = await post(`${B}/add`, vlessReality(p, { listen: '127.0.0.1' }));
      expect(r.json.success).toBe(false);
      expect(r.json.msg).toBe(`port ${p} is already in use on this host (tcp on 127.0.0.1): address already in use`);
    } finally {
      svc.probe = fake;
      await new Promise((res) => held.close(res));
    }
  });

  it('update: the inbound own port does not count against itself; another holder does', async () => {
    const p = nextPort();
    const a = (await post(`${B}/add`, vlessReality(p, { remark: 'a' }))).json.obj;
    t.portProbe.taken.add(`tcp/${p}`); // the running core holds it now
    const same = await post(`${B}/update/${a.id}`, vlessReality(p, { remark: 'a2' }));
    expect(same.json.success, same.json.msg).toBe(true);
    expect(same.json.obj.remark).toBe('a2');
    expect(same.json.obj.tag).toBe(a.tag);
    const q = nextPort();
    const b = (await post(`${B}/add`, vlessReality(q, { remark: 'b' }))).json.obj;
    const clash = await post(`${B}/update/${a.id}`, vlessReality(q, { remark: 'a3' }));
    expect(clash.json.success).toBe(false);
    expect(clash.json.msg).toContain(`port ${q} is already used by inbound 'b' (id ${b.id}`);
    const moved = nextPort();
    const ok = await post(`${B}/update/${a.id}`, vlessReality(moved));
    expect(ok.json.success).toBe(true);
    expect(ok.json.obj.tag).toBe(`inbound-${moved}`);
    expect(events('inbounds.changed').filter((e) => e.action === 'update')).toHaveLength(2);
  });

  it('update replaces the inbound and keeps its clients; settings.clients input is ignored', async () => {
    const p = nextPort();
    const a = (await post(`${B}/add`, vlessReality(p))).json.obj;
    expect((await post(`${C}/add`, { client: { email: `keep-${p}@x` }, inboundIds: [a.id] })).json.success).toBe(true);
    const r = await post(
      `${B}/update/${a.id}`,
      vlessReality(p, { remark: 'new', settings: { decryption: 'none', clients: [] } }),
    );
    expect(r.json.success).toBe(true);
    expect(r.json.obj.settings.clients.map((c: any) => c.email)).toEqual([`keep-${p}@x`]);
    const proto = await post(`${B}/update/${a.id}`, { ...vlessReality(p), protocol: 'trojan' });
    expect(proto.json.success).toBe(false);
    expect(proto.json.msg).toMatch(/detach them first/);
  });

  it('projects full clients in list/get and reduced ones in list/slim', async () => {
    const p = nextPort();
    const a = (await post(`${B}/add`, vlessReality(p))).json.obj;
    const email = `proj-${p}@x`;
    await post(`${C}/add`, {
      client: { email, flow: 'xtls-rprx-vision', comment: 'hi', totalGB: 100 },
      inboundIds: [a.id],
    });
    const full = (await get(`${B}/list`)).json.obj.find((i: any) => i.id === a.id);
    expect(full.settings.clients[0]).toMatchObject({
      email,
      flow: 'xtls-rprx-vision',
      comment: 'hi',
      totalGB: 100,
      enable: true,
    });
    expect(full.settings.clients[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(full.clientStats[0]).toMatchObject({ email, up: 0, down: 0, enable: true, total: 100 });
    expect(full.clientStats[0].uuid).toBe(full.settings.clients[0].id);
    const slim = (await get(`${B}/list/slim`)).json.obj.find((i: any) => i.id === a.id);
    expect(slim.settings.clients).toEqual([{ email, enable: true, comment: 'hi' }]);
    expect(slim.clientStats[0].uuid).toBeUndefined();
    expect(slim.clientStats[0].subId).toBeUndefined();
  });

  it('get/:id (JSON spliced from database text) equals the list entry built object by object, for every protocol', async () => {
    const ss2022 = 'lWeUfpnS9HmYFHWGs6Qz0Q==';
    const specs: Record<string, unknown>[] = [
      vlessReality(nextPort()),
      { port: nextPort(), protocol: 'vless', settings: { decryption: 'none' }, streamSettings: { network: 'ws' } },
      { port: nextPort(), protocol: 'vmess', streamSettings: { network: 'tcp' } },
      { port: nextPort(), protocol: 'trojan', streamSettings: { network: 'tcp', security: 'tls' } },
      { port: nextPort(), protocol: 'shadowsocks', settings: { method: 'aes-256-gcm', network: 'tcp,udp' } },
      {
        port: nextPort(),
        protocol: 'shadowsocks',
        settings: { method: '2022-blake3-aes-128-gcm', password: ss2022, network: 'tcp,udp' },
      },
      { port: nextPort(), protocol: 'hysteria2', streamSettings: { network: 'hysteria2' } },
      { port: nextPort(), protocol: 'dokodemo', settings: { address: '1.1.1.1', port: 53, network: 'udp' } },
    ];
    const ids: number[] = [];
    for (const spec of specs) {
      const r = await post(`${B}/add`, spec);
      expect(r.json.success, r.json.msg).toBe(true);
      ids.push(r.json.obj.id);
    }
    const takers = ids.slice(0, 7);
    // awkward text (quotes, backslashes, control characters, non-ASCII), flow, reverse, disabled, an empty inbound
    const clients = [
      {
        email: 'splice-a@x',
        flow: 'xtls-rprx-vision',
        comment: 'say "hi" \\ \u0001 tab\t ünï 😀',
        group: 'G "q"',
        reverse: { tag: 'rev-1' },
        totalGB: 5,
        expiryTime: -86400000,
      },
      { email: 'splice-b@x', enable: false, security: 'aes-128-gcm', subId: 'sub-b', tgId: 42, limitIp: 3, reset: 7 },
      { email: 'splice-c@x' },
    ];
    for (const client of clients) {
      const r = await post(`${C}/add`, { client, inboundIds: takers });
      expect(r.json.success, r.json.msg).toBe(true);
    }
    await t.store.traffic.applyDeltas(
      { clients: [{ email: 'splice-a@x', up: 7, down: 9 }], inbounds: [], outbounds: [] },
      t.clock.now(),
    );
    await post(`${B}/add`, {
      port: nextPort(),
      protocol: 'vless',
      settings: { decryption: 'none' },
      streamSettings: { network: 'ws' },
    });
    const list = (await get(`${B}/list`)).json.obj as any[];
    for (const ib of list) {
      const r = await get(`${B}/get/${ib.id}`);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.json.success).toBe(true);
      expect(r.json.obj, `${ib.protocol} ${ib.id}`).toEqual(ib);
    }
    const vless = (await get(`${B}/get/${ids[0]}`)).json.obj;
    expect(vless.settings.clients.map((c: any) => c.email)).toEqual(['splice-a@x', 'splice-b@x', 'splice-c@x']);
    expect(vless.settings.clients[0]).toMatchObject({
      flow: 'xtls-rprx-vision',
      reverse: { tag: 'rev-1' },
      comment: clients[0]!.comment,
    });
    expect(vless.clientStats[0]).toMatchObject({ email: 'splice-a@x', up: 7, down: 9, enable: true });
    expect((await get(`${B}/get/${ids[1]}`)).json.obj.settings.clients[0].flow).toBe('');
    expect((await get(`${B}/get/${ids[2]}`)).json.obj.settings.clients.map((c: any) => c.security)).toEqual([
      'auto',
      'aes-128-gcm',
      'auto',
    ]);
    expect((await get(`${B}/get/${ids[7]}`)).json.obj.settings.clients).toBeUndefined();
    expect((await get(`${B}/get/999999`)).json).toMatchObject({ success: false });
  });

  it('options carry tlsFlowCapable', async () => {
    const p = nextPort();
    const a = (await post(`${B}/add`, vlessReality(p))).json.obj;
    const b = (
      await post(`${B}/add`, {
        port: nextPort(),
        protocol: 'vless',
        streamSettings: { network: 'ws', security: 'tls' },
      })
    ).json.obj;
    const c = (
      await post(`${B}/add`, {
        port: nextPort(),
        protocol: 'trojan',
        streamSettings: { network: 'tcp', security: 'tls' },
      })
    ).json.obj;
    const opts = (await get(`${B}/options`)).json.obj;
    const by = (id: number) => opts.find((o: any) => o.id === id);
    expect(by(a.id)).toEqual({ id: a.id, remark: a.remark, protocol: 'vless', port: p, tlsFlowCapable: true });
    expect(by(b.id).tlsFlowCapable).toBe(false);
    expect(by(c.id).tlsFlowCapable).toBe(false);
  });

  it('setEnable, resetTraffic and resetAllTraffics', async () => {
    const a = (await post(`${B}/add`, vlessReality(nextPort()))).json.obj;
    const b = (await post(`${B}/add`, vlessReality(nextPort()))).json.obj;
    // counters come from the traffic tick
    await t.store.traffic.applyDeltas(
      {
        clients: [],
        outbounds: [],
        inbounds: [
          { tag: a.tag, up: 10, down: 20 },
          { tag: b.tag, up: 1, down: 2 },
        ],
      },
      t.clock.now(),
    );
    expect((await get(`${B}/get/${a.id}`)).json.obj).toMatchObject({ up: 10, down: 20 });
    const dis = await post(`${B}/setEnable/${a.id}`, { enable: false });
    expect(dis.json.success).toBe(true);
    expect((await get(`${B}/get/${a.id}`)).json.obj.enable).toBe(false);
    expect(events('inbounds.changed').at(-1)).toEqual({ ids: [a.id], action: 'disable' });
    expect((await post(`${B}/setEnable/${a.id}`, { enable: 'yes' })).json.success).toBe(false);
    expect((await post(`${B}/${a.id}/resetTraffic`)).json.success).toBe(true);
    expect((await get(`${B}/get/${a.id}`)).json.obj).toMatchObject({ up: 0, down: 0 });
    expect((await get(`${B}/get/${b.id}`)).json.obj).toMatchObject({ up: 1, down: 2 });
    expect(events('inbounds.changed').at(-1)).toEqual({ ids: [a.id], action: 'resetTraffic' });
    expect((await post(`${B}/resetAllTraffics`)).json.success).toBe(true);
    expect(events('inbounds.changed').at(-1)).toEqual({ ids: 'all', action: 'resetAllTraffics' });
    expect((await get(`${B}/get/${b.id}`)).json.obj).toMatchObject({ up: 0, down: 0 });
    expect((await post(`${B}/999999/resetTraffic`)).json.msg).toBe('inbound 999999 not found');
  });

  it('del removes the inbound; clients survive detached', async () => {
    const a = (await post(`${B}/add`, vlessReality(nextPort()))).json.obj;
    const b = (await post(`${B}/add`, vlessReality(nextPort()))).json.obj;
    const email = `survivor-${a.id}@x`;
    await post(`${C}/add`, { client: { email }, inboundIds: [a.id, b.id] });
    const r = await post(`${B}/del/${a.id}`);
    expect(r.json.success).toBe(true);
    expect((await get(`${B}/get/${a.id}`)).json.msg).toBe(`inbound ${a.id} not found`);
    const c = (await get(`${C}/get/${encodeURIComponent(email)}`)).json.obj;
    expect(c.inboundIds).toEqual([b.id]);
    expect(events('inbounds.changed').at(-1)).toEqual({ ids: [a.id], action: 'del' });
    expect((await post(`${B}/del/${a.id}`)).json.success).toBe(false);
  });

  it('nodeId kept only for node-capable protocols and must name an existing node', async () => {
    const r = await post(`${B}/add`, { port: nextPort(), protocol: 'socks', nodeId: 5, settings: {} });
    expect(r.json.success).toBe(true);
    expect(r.json.obj.nodeId).toBeNull();
    const bad = await post(`${B}/add`, vlessReality(nextPort(), { nodeId: 424242 }));
    expect(bad.json.success).toBe(false);
    expect(bad.json.msg).toContain('node 424242 not found');
    const zero = await post(`${B}/add`, vlessReality(nextPort(), { nodeId: 0 }));
    expect(zero.json.obj.nodeId).toBeNull();
  });

  it('import creates clients and attaches existing emails in one go', async () => {
    const a = (await post(`${B}/add`, vlessReality(nextPort()))).json.obj;
    const existing = `exist-${a.id}@x`;
    const made = (await post(`${C}/add`, { client: { email: existing }, inboundIds: [a.id] })).json.obj;
    const p = nextPort();
    const data = JSON.stringify({
      port: p,
      protocol: 'vless',
      remark: 'imported',
      up: 5,
      down: 7,
      settings: JSON.stringify({
        decryption: 'none',
        clients: [
          {
            id: '11111111-2222-4333-8444-555555555555',
            email: `new-${p}@x`,
            flow: 'xtls-rprx-vision',
            totalGB: 10,
            enable: true,
            subId: 'subimp',
          },
          { email: existing, id: 'ffffffff-2222-4333-8444-555555555555' },
        ],
      }),
      streamSettings: { network: 'tcp', security: 'reality' },
      sniffing: {},
    });
    const r = await call(t, 'POST', `${B}/import`, new URLSearchParams({ data }), s);
    expect(r.json.success, r.json.msg).toBe(true);
    const ib = r.json.obj;
    expect(ib.settings.clients.map((c: any) => c.email).sort()).toEqual([existing, `new-${p}@x`].sort());
    const fresh = (await get(`${C}/get/${encodeURIComponent(`new-${p}@x`)}`)).json.obj;
    expect(fresh.client).toMatchObject({
      uuid: '11111111-2222-4333-8444-555555555555',
      flow: 'xtls-rprx-vision',
      totalGB: 10,
      subId: 'subimp',
    });
    const old = (await get(`${C}/get/${encodeURIComponent(existing)}`)).json.obj;
    expect(old.client.uuid).toBe(made.uuid); // attached, not duplicated or overwritten
    expect(old.inboundIds).toEqual([a.id, ib.id]);
    expect(events('inbounds.changed').at(-1)).toEqual({ ids: [ib.id], action: 'import' });
    expect(events('clients.changed').at(-1).action).toBe('import');
  });

  it('import with a bad client changes nothing', async () => {
    const before = await snapshot();
    const p = nextPort();
    const data = JSON.stringify({
      port: p,
      protocol: 'vless',
      settings: { clients: [{ email: 'ok@imp' }, { email: 'bad/../x' }] },
    });
    const r = await call(t, 'POST', `${B}/import`, new URLSearchParams({ data }), s);
    expect(r.json.success).toBe(false);
    expect(r.json.msg).toContain('clients[1].email');
    const dup = await call(
      t,
      'POST',
      `${B}/import`,
      new URLSearchParams({
        data: JSON.stringify({
          port: p,
          protocol: 'vless',
          settings: { clients: [{ email: 'd@x' }, { email: 'd@x' }] },
        }),
      }),
      s,
    );
    expect(dup.json.msg).toContain('duplicate email');
    expect((await call(t, 'POST', `${B}/import`, new URLSearchParams({ data: '{nope' }), s)).json.msg).toBe(
      'data: malformed JSON',
    );
    expect((await call(t, 'POST', `${B}/import`, {}, s)).json.success).toBe(false);
    expect(await snapshot()).toBe(before);
  });

  it('fallbacks: replace atomically, master must be VLESS/Trojan TCP+TLS, child must exist', async () => {
    const master = (
      await post(`${B}/add`, {
        port: nextPort(),
        protocol: 'vless',
        streamSettings: { network: 'tcp', security: 'tls' },
      })
    ).json.obj;
    const child = (
      await post(`${B}/add`, {
        port: nextPort(),
        protocol: 'vless',
        listen: '127.0.0.1',
        streamSettings: { network: 'ws' },
      })
    ).json.obj;
    const child2 = (
      await post(`${B}/add`, {
        port: nextPort(),
        protocol: 'trojan',
        listen: '127.0.0.1',
        streamSettings: { network: 'tcp' },
      })
    ).json.obj;
    expect((await get(`${B}/${master.id}/fallbacks`)).json.obj).toEqual([]);
    const r = await post(`${B}/${master.id}/fallbacks`, {
      fallbacks: [
        { childId: child.id, path: '/ws', xver: 1 },
        { childId: child2.id, alpn: 'h2', name: 'sni.example', sortOrder: 5 },
      ],
    });
    expect(r.json.success, r.json.msg).toBe(true);
    expect(events('inbounds.changed').at(-1)).toEqual({ ids: [master.id], action: 'fallbacks' });
    const list = (await get(`${B}/${master.id}/fallbacks`)).json.obj;
    expect(list.map((f: any) => [f.masterId, f.childId, f.path, f.alpn, f.name, f.xver])).toEqual([
      [master.id, child.id, '/ws', '', '', 1],
      [master.id, child2.id, '', 'h2', 'sni.example', 0],
    ]);
    const bad = await post(`${B}/${master.id}/fallbacks`, { fallbacks: [{ childId: child.id }, { childId: 999999 }] });
    expect(bad.json.success).toBe(false);
    expect(bad.json.msg).toContain('fallbacks[1].childId: inbound 999999 not found');
    expect((await get(`${B}/${master.id}/fallbacks`)).json.obj).toHaveLength(2); // unchanged
    const notMaster = await post(`${B}/${child.id}/fallbacks`, { fallbacks: [{ childId: master.id }] });
    expect(notMaster.json.msg).toMatch(/cannot have fallbacks/);
    expect((await post(`${B}/${master.id}/fallbacks`, { fallbacks: [{ childId: master.id }] })).json.msg).toMatch(
      /itself/,
    );
    expect(
      (await post(`${B}/${master.id}/fallbacks`, { fallbacks: [{ childId: child.id, xver: 7 }] })).json.msg,
    ).toMatch(/xver/);
    expect(
      (
        await post(`${B}/${master.id}/fallbacks`, {
          fallbacks: Array.from({ length: 101 }, () => ({ childId: child.id })),
        })
      ).json.msg,
    ).toMatch(/at most 100/);
    expect((await post(`${B}/${master.id}/fallbacks`, { fallbacks: [] })).json.success).toBe(true);
    expect((await get(`${B}/${master.id}/fallbacks`)).json.obj).toEqual([]);
    expect((await get(`${B}/999999/fallbacks`)).json.success).toBe(false);
  });

  it('bad input: success=false naming the field, nothing changed', async () => {
    const before = await snapshot();
    const cases: [string, unknown, RegExp][] = [
      [`${B}/add`, '{"port": 1', /malformed JSON/],
      [`${B}/add`, { protocol: 'vless' }, /port/],
      [`${B}/add`, { port: 'abc', protocol: 'vless' }, /port: must be an integer/],
      [`${B}/add`, { port: 70000, protocol: 'vless' }, /port: must be at most 65535/],
      [`${B}/add`, { port: 0, protocol: 'vless' }, /port/],
      [`${B}/add`, { port: 1234, protocol: 'gopher' }, /protocol: must be one of/],
      [`${B}/add`, { port: 1234, protocol: 'vless', settings: '{bad' }, /settings: malformed JSON/],
      [`${B}/add`, { port: 1234, protocol: 'vless', settings: '[1,2]' }, /settings: must be a JSON object/],
      [`${B}/add`, { port: 1234, protocol: 'vless', streamSettings: 5 }, /streamSettings/],
      [
        `${B}/add`,
        { port: 1234, protocol: 'vless', remark: 'a\u0000b' },
        /remark: must not contain control characters/,
      ],
      [`${B}/add`, [1, 2], /body: must be an inbound object/],
      [`${B}/update/abc`, vlessReality(1234), /id: must be a positive integer/],
      [`${B}/update/999999`, vlessReality(1234), /inbound 999999 not found/],
      [`${B}/del/..%2F..%2Fetc`, undefined, /id: must be a positive integer/],
      [`${B}/del/-1`, undefined, /id: must be a positive integer/],
      [`${B}/setEnable/999999`, { enable: true }, /inbound 999999 not found/],
      [`${B}/setEnable/1`, {}, /enable/],
    ];
    for (const [path, body, msg] of cases) {
      const r = await post(path, body);
      expect(r.status, path).toBe(200);
      expect(r.json.success, `${path} ${JSON.stringify(body)}`).toBe(false);
      expect(r.json.msg).toMatch(msg);
    }
    expect((await get(`${B}/get/1e3`)).json.success).toBe(false);
    expect(await snapshot()).toBe(before);
    expect(events('inbounds.changed')).toEqual([]);
  });
});
