import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { defaultTemplate } from '../../domain/core/template.js';

const form = (o: Record<string, string>) => new URLSearchParams(o);

describe.each(testDatabases())('core endpoints on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let inboundId: number;

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    const r = await call(
      t,
      'POST',
      '/panel/api/inbounds/add',
      {
        remark: 'v',
        enable: true,
        listen: '',
        port: 41001,
        protocol: 'vless',
        settings: { decryption: 'none' },
        streamSettings: { network: 'tcp', security: 'none' },
        sniffing: {},
      },
      s,
    );
    expect(r.json.success, r.json.msg).toBe(true);
    inboundId = r.json.obj.id;
    const c = await call(
      t,
      'POST',
      '/panel/api/clients/add',
      { client: { email: 'alice@x', reverse: { tag: 'rev-a' } }, inboundIds: [inboundId] },
      s,
    );
    expect(c.json.success, c.json.msg).toBe(true);
    const d = await call(
      t,
      'POST',
      '/panel/api/inbounds/add',
      {
        remark: 'off',
        enable: false,
        listen: '',
        port: 41002,
        protocol: 'vmess',
        settings: {},
        streamSettings: {},
        sniffing: {},
      },
      s,
    );
    expect(d.json.success, d.json.msg).toBe(true);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => {
    t.core.rejectConfigs = null;
    t.core.current = { state: 'running', version: '1.8.24', flavour: 'xray', error: '', pid: 4242 };
  });

  it('refuses unauthenticated requests and accepts a Bearer token', async () => {
    expect((await call(t, 'POST', '/panel/core/')).status).toBe(404);
    const tok = await call(t, 'POST', '/panel/setting/apiTokens/create', { name: `core-${db.name}` }, s);
    const r = await call(t, 'POST', '/panel/core/', undefined, { bearer: tok.json.obj.token });
    expect(r.json.success).toBe(true);
  });

  it('POST / returns the core settings payload', async () => {
    const r = await call(t, 'POST', '/panel/core/', undefined, s);
    expect(r.json.success).toBe(true);
    const p = r.json.obj;
    expect(JSON.parse(p.coreSetting)).toEqual(defaultTemplate(62789));
    expect(JSON.parse(p.inboundTags)).toHaveLength(2);
    expect(JSON.parse(p.clientReverseTags)).toEqual(['rev-a']);
    expect(p.outboundTestUrl).toMatch(/^https:\/\//);
  });

  it('getDefaultJsonConfig is the same under /panel/core and /panel/setting', async () => {
    const a = await call(t, 'GET', '/panel/core/getDefaultJsonConfig', undefined, s);
    const b = await call(t, 'GET', '/panel/setting/getDefaultJsonConfig', undefined, s);
    expect(a.json.obj).toEqual(b.json.obj);
    expect(a.json.obj.inbounds[0]).toMatchObject({ tag: 'api', listen: '127.0.0.1', protocol: 'dokodemo-door' });
  });

  it('getConfigJson assembles enabled inbounds with their clients', async () => {
    const r = await call(t, 'GET', '/panel/api/server/getConfigJson', undefined, s);
    expect(r.json.success).toBe(true);
    const cfg = r.json.obj;
    expect(cfg.log.loglevel).toBe('warning');
    expect(cfg.routing.rules[0]).toMatchObject({ inboundTag: ['api'], outboundTag: 'api' });
    const tags = cfg.inbounds.map((i: any) => i.tag);
    expect(tags).toHaveLength(2); // api + the enabled vless inbound
    const vless = cfg.inbounds[1];
    expect(vless).toMatchObject({ port: 41001, protocol: 'vless' });
    expect('listen' in vless).toBe(false);
    expect(vless.settings.clients).toEqual([
      { id: expect.stringMatching(/^[0-9a-f-]{36}$/), email: 'alice@x', reverse: { tag: 'rev-a' } },
    ]);
    expect(cfg.outbounds.map((o: any) => o.tag)).toEqual(['direct', 'blocked']);
  });

  it('update refuses text that is not JSON and saves nothing', async () => {
    const r = await call(t, 'POST', '/panel/core/update', form({ coreSetting: '{nope', outboundTestUrl: '' }), s);
    expect(r.json.success).toBe(false);
    expect(r.json.msg).toMatch(/coreSetting: not valid JSON/);
    expect(r.status).toBe(200);
  });

  it('update refuses a config the core rejects in a test run, and saves nothing', async () => {
    t.core.rejectConfigs = 'failed to load inbound detour config';
    const tpl = { ...defaultTemplate(62789), outbounds: [{ tag: 'direct', protocol: 'bogus' }] };
    const r = await call(t, 'POST', '/panel/core/update', form({ coreSetting: JSON.stringify(tpl) }), s);
    expect(r.json.success).toBe(false);
    expect(r.json.msg).toMatch(/rejected the config: failed to load inbound detour config/);
    const p = await call(t, 'POST', '/panel/core/', undefined, s);
    expect(JSON.parse(p.json.obj.coreSetting)).toEqual(defaultTemplate(62789));
  });

  it('update saves a valid template, reloads the running core on it, and getConfigJson follows', async () => {
    const tpl = defaultTemplate(62789) as any;
    tpl.outbounds.push({ tag: 'warp', protocol: 'freedom', settings: {} });
    const before = t.core.ops('restart').length;
    const r = await call(
      t,
      'POST',
      '/panel/core/update',
      form({ coreSetting: JSON.stringify(tpl), outboundTestUrl: 'http://127.0.0.1:9/probe' }),
      s,
    );
    expect(r.json.success, r.json.msg).toBe(true);
    expect(t.core.ops('restart').length).toBe(before + 1);
    const p = await call(t, 'POST', '/panel/core/', undefined, s);
    expect(JSON.parse(p.json.obj.coreSetting).outbounds.map((o: any) => o.tag)).toEqual(['direct', 'blocked', 'warp']);
    expect(p.json.obj.outboundTestUrl).toBe('http://127.0.0.1:9/probe');
    const cfg = await call(t, 'GET', '/panel/api/server/getConfigJson', undefined, s);
    expect(cfg.json.obj.outbounds.map((o: any) => o.tag)).toContain('warp');
    // restore the default for the other tests
    await call(t, 'POST', '/panel/core/update', form({ coreSetting: JSON.stringify(defaultTemplate(62789)) }), s);
  });

  it('update validates its fields', async () => {
    expect((await call(t, 'POST', '/panel/core/update', form({}), s)).json.msg).toMatch(/coreSetting/);
    expect(
      (await call(t, 'POST', '/panel/core/update', form({ coreSetting: '{}', outboundTestUrl: 'ftp://x' }), s)).json
        .msg,
    ).toMatch(/outboundTestUrl/);
  });

  it('getCoreResult returns the core output and the builder notes', async () => {
    t.core.out = 'Xray 1.8.24 started';
    const r = await call(t, 'GET', '/panel/core/getCoreResult', undefined, s);
    expect(r.json.success).toBe(true);
    expect(r.json.obj).toContain('Xray 1.8.24 started');
  });

  it('stopCoreService stops a running core and fails on a stopped one', async () => {
    t.emitted.length = 0;
    const r = await call(t, 'POST', '/panel/api/server/stopCoreService', undefined, s);
    expect(r.json.success).toBe(true);
    expect(t.emitted.some((e) => e.name === 'core.state' && (e.payload as any).state === 'stopped')).toBe(true);
    expect(t.emitted.some((e) => e.name === 'notification' && (e.payload as any).title === 'Core stopped')).toBe(true);
    const again = await call(t, 'POST', '/panel/api/server/stopCoreService', undefined, s);
    expect(again.json.success).toBe(false);
    expect(again.json.msg).toBe('core is not running');
  });

  it('restartCoreService starts the core, and fails with the reason when the config is invalid', async () => {
    t.core.current.state = 'stopped';
    t.emitted.length = 0;
    const r = await call(t, 'POST', '/panel/api/server/restartCoreService', undefined, s);
    expect(r.json.success).toBe(true);
    expect(t.core.status().state).toBe('running');
    expect(t.emitted.some((e) => e.name === 'core.state' && (e.payload as any).state === 'running')).toBe(true);
    t.core.rejectConfigs = 'unknown config id: bogus';
    const bad = await call(t, 'POST', '/panel/api/server/restartCoreService', undefined, s);
    expect(bad.json.success).toBe(false);
    expect(bad.json.msg).toMatch(/invalid core config: unknown config id: bogus/);
  });

  it('client changes reach the running core live (no restart), derived from the inbound protocol', async () => {
    await call(t, 'POST', '/panel/api/server/restartCoreService', undefined, s);
    t.core.calls = [];
    const r = await call(
      t,
      'POST',
      '/panel/api/clients/add',
      { client: { email: 'bob@x' }, inboundIds: [inboundId] },
      s,
    );
    expect(r.json.success, r.json.msg).toBe(true);
    await t.services.core.sync.flush();
    const adds = t.core.ops('addUser');
    expect(adds).toHaveLength(1);
    expect(adds[0]!.slice(1)).toEqual(['vless', expect.objectContaining({ email: 'bob@x', id: expect.any(String) })]);
    await call(t, 'POST', '/panel/api/clients/del/bob@x', undefined, s);
    await t.services.core.sync.flush();
    expect(t.core.ops('removeUser').map((a) => a[1])).toEqual(['bob@x']);
    expect(t.core.ops('restart')).toEqual([]);
  });

  it('group label changes do not make the core sync re-read clients (labels never reach the core)', async () => {
    await call(t, 'POST', '/panel/api/server/restartCoreService', undefined, s);
    await t.services.core.sync.flush();
    const before = { ...t.services.core.sync.stats };
    const a = await call(t, 'POST', '/panel/api/clients/bulkAssignGroup', { emails: ['alice@x'], group: 'team' }, s);
    expect(a.json.success, a.json.msg).toBe(true);
    const r = await call(t, 'POST', '/panel/api/clients/groups/rename', { oldName: 'team', newName: 'crew' }, s);
    expect(r.json.obj).toEqual({ affected: 1 });
    await call(t, 'POST', '/panel/api/clients/groups/delete', { name: 'crew' }, s);
    await t.services.core.sync.flush();
    expect(t.services.core.sync.stats.passes).toBe(before.passes);
  });

  it('restartCoreService and stopCoreService first store the counters the core holds (a restart zeroes them)', async () => {
    await call(t, 'POST', '/panel/api/server/restartCoreService', undefined, s);
    const traffic = async () => (await call(t, 'GET', '/panel/api/clients/traffic/alice@x', undefined, s)).json.obj;
    const before = await traffic();
    t.core.stats = [
      { name: 'user>>>alice@x>>>traffic>>>uplink', value: 700 },
      { name: 'user>>>alice@x>>>traffic>>>downlink', value: 300 },
    ];
    expect((await call(t, 'POST', '/panel/api/server/restartCoreService', undefined, s)).json.success).toBe(true);
    t.core.stats = [];
    let after = await traffic();
    expect([after.up - before.up, after.down - before.down]).toEqual([700, 300]);
    t.core.stats = [{ name: 'user>>>alice@x>>>traffic>>>uplink', value: 50 }];
    expect((await call(t, 'POST', '/panel/api/server/stopCoreService', undefined, s)).json.success).toBe(true);
    t.core.stats = [];
    after = await traffic();
    expect(after.up - before.up).toBe(750);
    t.core.current = { ...t.core.current, state: 'stopped' };
    expect((await call(t, 'POST', '/panel/api/server/restartCoreService', undefined, s)).json.success).toBe(true);
  });

  it('an inbound disabled and enabled again is removed and added live', async () => {
    t.core.calls = [];
    await call(t, 'POST', `/panel/api/inbounds/setEnable/${inboundId}`, { enable: false }, s);
    await t.services.core.sync.flush();
    expect(t.core.ops('removeInbound')).toHaveLength(1);
    await call(t, 'POST', `/panel/api/inbounds/setEnable/${inboundId}`, { enable: true }, s);
    await t.services.core.sync.flush();
    expect(t.core.ops('addInbound')[0]![0]).toMatchObject({
      port: 41001,
      protocol: 'vless',
      settings: { clients: [expect.objectContaining({ email: 'alice@x' })] },
    });
  });

  it('testOutbound validates input and passes the parsed outbound chain to the core', async () => {
    expect((await call(t, 'POST', '/panel/core/testOutbound', form({}), s)).json.msg).toMatch(/outbound/);
    expect((await call(t, 'POST', '/panel/core/testOutbound', form({ outbound: '{x' }), s)).json.msg).toMatch(
      /outbound: not valid JSON/,
    );
    expect(
      (await call(t, 'POST', '/panel/core/testOutbound', form({ outbound: '{}', mode: 'udp' }), s)).json.msg,
    ).toMatch(/mode/);
    expect(
      (await call(t, 'POST', '/panel/core/testOutbound', form({ outbound: '{}', allOutbounds: '{}' }), s)).json.msg,
    ).toMatch(/allOutbounds: must be a JSON array/);
    t.core.calls = [];
    const ob = { tag: 'a', protocol: 'vmess', streamSettings: { sockopt: { dialerProxy: 'b' } } };
    const r = await call(
      t,
      'POST',
      '/panel/core/testOutbound',
      form({
        outbound: JSON.stringify(ob),
        allOutbounds: JSON.stringify([ob, { tag: 'b', protocol: 'freedom' }]),
        mode: 'tcp',
      }),
      s,
    );
    expect(r.json).toMatchObject({ success: true, obj: { success: true, delay: 12, error: '' } });
    expect(t.core.ops('probeOutbound')[0]![0]).toMatchObject({
      mode: 'tcp',
      allowPrivate: false,
      outbound: ob,
      allOutbounds: [ob, { tag: 'b', protocol: 'freedom' }],
    });
    // A server on a private network is probed only on request (the host refuses it otherwise).
    await call(
      t,
      'POST',
      '/panel/core/testOutbound',
      form({ outbound: JSON.stringify(ob), mode: 'tcp', allowPrivate: 'true' }),
      s,
    );
    expect(t.core.ops('probeOutbound')[1]![0]).toMatchObject({ allowPrivate: true });
    expect(
      (await call(t, 'POST', '/panel/core/testOutbound', form({ outbound: '{}', allowPrivate: 'maybe' }), s)).json.msg,
    ).toMatch(/allowPrivate/);
  });

  it('the core view repository reads what the builder needs', async () => {
    const view = await t.store.coreView.load();
    expect(view.inbounds.map((i) => i.port)).toEqual([41001]);
    expect(view.clients.get(inboundId)!.map((c) => c.email)).toEqual(['alice@x']);
    const rows = await t.store.coreView.clientsByEmails(['alice@x', 'nobody@x']);
    expect(rows).toEqual([
      {
        client: expect.objectContaining({ email: 'alice@x', enable: true, reverse: { tag: 'rev-a' } }),
        inboundIds: [inboundId],
      },
    ]);
    expect(await t.store.coreView.clientReverseTags()).toEqual(['rev-a']);
  });
});
