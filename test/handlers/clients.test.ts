import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { fromBase64 } from '../../domain/shared/random.js';

const I = '/panel/api/inbounds';
const C = '/panel/api/clients';
const DAY = 86_400_000;
const enc = encodeURIComponent;

describe.each(testDatabases())('clients API on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let port = 30000;
  const ib: Record<string, number> = {};
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const get = (path: string) => call(t, 'GET', path, undefined, s);
  const events = (name = 'clients.changed') => t.emitted.filter((e) => e.name === name).map((e) => e.payload as any);
  const snapshot = async () =>
    JSON.stringify([
      (await get(`${I}/list`)).json.obj,
      (await get(`${C}/list`)).json.obj,
      (await get(`${C}/groups`)).json.obj,
    ]);
  const addInbound = async (body: Record<string, unknown>) => {
    const r = await post(`${I}/add`, { port: ++port, ...body });
    expect(r.json.success, r.json.msg).toBe(true);
    return r.json.obj.id as number;
  };
  const add = async (client: Record<string, unknown>, inboundIds: number[] = [ib.vlessWs!]) =>
    post(`${C}/add`, { client, inboundIds });
  const mustAdd = async (client: Record<string, unknown>, inboundIds?: number[]) => {
    const r = await add(client, inboundIds);
    expect(r.json.success, r.json.msg).toBe(true);
    t.emitted.length = 0; // tests assert the events of the operation under test
    return r.json.obj;
  };
  const clientOf = async (email: string) => (await get(`${C}/get/${enc(email)}`)).json.obj;

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    ib.vlessReality = await addInbound({
      protocol: 'vless',
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'reality' },
    });
    ib.vlessWs = await addInbound({ protocol: 'vless', streamSettings: { network: 'ws', security: 'tls' } });
    ib.vmess = await addInbound({ protocol: 'vmess', streamSettings: { network: 'tcp' } });
    ib.trojan = await addInbound({ protocol: 'trojan', streamSettings: { network: 'tcp', security: 'tls' } });
    ib.ssLegacy = await addInbound({
      protocol: 'shadowsocks',
      settings: { method: 'aes-256-gcm', network: 'tcp,udp' },
    });
    ib.ss128 = await addInbound({
      protocol: 'shadowsocks',
      settings: { method: '2022-blake3-aes-128-gcm', network: 'tcp' },
    });
    ib.ss256 = await addInbound({
      protocol: 'shadowsocks',
      settings: { method: '2022-blake3-aes-256-gcm', network: 'tcp' },
    });
    ib.ssChacha = await addInbound({
      protocol: 'shadowsocks',
      settings: { method: '2022-blake3-chacha20-poly1305', network: 'tcp' },
    });
    ib.hy2 = await addInbound({ protocol: 'hysteria2', settings: {} });
    ib.socks = await addInbound({ protocol: 'socks', settings: {} });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => {
    t.emitted.length = 0;
  });

  describe('add', () => {
    it('generates per-protocol secrets and a subId, emits one event', async () => {
      const r = await add({ email: 'gen@x' }, [ib.vlessReality!, ib.vmess!, ib.trojan!, ib.hy2!]);
      expect(r.json.success, r.json.msg).toBe(true);
      const c = r.json.obj;
      expect(c.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(c.password.length).toBeGreaterThanOrEqual(16);
      expect(c.auth.length).toBeGreaterThanOrEqual(16);
      expect(c.security).toBe('auto');
      expect(c.subId).toMatch(/^[a-z0-9]{16}$/);
      expect(c.inboundIds).toEqual([ib.vlessReality, ib.vmess, ib.trojan, ib.hy2].sort((a, b) => a! - b!));
      expect(c.traffic).toEqual({ up: 0, down: 0, enable: true, lastOnline: 0 });
      expect(c.enable).toBe(true);
      expect(events()).toEqual([{ emails: ['gen@x'], action: 'add' }]);
      const got = await clientOf('gen@x');
      expect(got.inboundIds).toEqual(c.inboundIds);
      expect(got.client.uuid).toBe(c.uuid);
    });

    it('keeps given secrets; input `id` is the uuid', async () => {
      const c = await mustAdd({ email: 'given@x', id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee', subId: 'mysub' }, [
        ib.vmess!,
      ]);
      expect(c.uuid).toBe('aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee');
      expect(c.subId).toBe('mysub');
      expect(c.password).toBe('');
    });

    it('Shadowsocks-2022 keys have the exact decoded length; an invalid key is replaced, a valid one kept', async () => {
      const k128 = (await mustAdd({ email: 'ss128@x', password: 'not-a-key' }, [ib.ss128!])).password;
      expect(fromBase64(k128)).toHaveLength(16);
      expect((await mustAdd({ email: 'ss256@x' }, [ib.ss256!])).password).toSatisfy(
        (k: string) => fromBase64(k).length === 32,
      );
      expect((await mustAdd({ email: 'sscha@x' }, [ib.ssChacha!])).password).toSatisfy(
        (k: string) => fromBase64(k).length === 32,
      );
      const wrongLen = Buffer.alloc(32, 1).toString('base64');
      expect((await mustAdd({ email: 'ss128b@x', password: wrongLen }, [ib.ss128!])).password).not.toBe(wrongLen);
      const good = Buffer.alloc(16, 7).toString('base64');
      expect((await mustAdd({ email: 'ss128c@x', password: good }, [ib.ss128!])).password).toBe(good);
    });

    it('a legacy Shadowsocks client gets the inbound method', async () => {
      const c = await mustAdd({ email: 'legacy@x' }, [ib.ssLegacy!]);
      expect(c.method).toBe('aes-256-gcm');
      expect(c.password).not.toBe('');
      const view = (await get(`${I}/get/${ib.ssLegacy}`)).json.obj.settings.clients.find(
        (x: any) => x.email === 'legacy@x',
      );
      expect(view).toMatchObject({ method: 'aes-256-gcm', password: c.password });
    });

    it('flow only where meaningful; reverse only on VLESS', async () => {
      expect(
        await mustAdd({ email: 'flow1@x', flow: 'xtls-rprx-vision', reverse: { tag: 'r1' } }, [ib.vlessReality!]),
      ).toMatchObject({ flow: 'xtls-rprx-vision', reverse: { tag: 'r1' } });
      expect(
        await mustAdd({ email: 'flow2@x', flow: 'xtls-rprx-vision', reverse: '{"tag":"r2"}' }, [ib.vlessWs!]),
      ).toMatchObject({ flow: '', reverse: { tag: 'r2' } });
      expect(
        await mustAdd({ email: 'flow3@x', flow: 'xtls-rprx-vision-udp443', reverse: { tag: 'r3' } }, [ib.trojan!]),
      ).toMatchObject({ flow: 'xtls-rprx-vision-udp443', reverse: null });
      expect(
        await mustAdd({ email: 'flow4@x', flow: 'xtls-rprx-vision', reverse: { tag: '' } }, [ib.vmess!]),
      ).toMatchObject({ flow: '', reverse: null });
      // a client on a capable and a non-capable inbound: the non-capable inbound's projection has no flow
      await mustAdd({ email: 'flow5@x', flow: 'xtls-rprx-vision' }, [ib.vlessReality!, ib.vlessWs!]);
      const proj = async (id: number) =>
        (await get(`${I}/get/${id}`)).json.obj.settings.clients.find((x: any) => x.email === 'flow5@x');
      expect((await proj(ib.vlessReality!)).flow).toBe('xtls-rprx-vision');
      expect((await proj(ib.vlessWs!)).flow).toBe('');
      expect((await add({ email: 'flow6@x', flow: 'bogus' })).json.msg).toMatch(/^client\.flow: must be one of/);
    });

    it('needs at least one existing, client-taking inbound', async () => {
      const before = await snapshot();
      expect((await post(`${C}/add`, { client: { email: 'noib@x' }, inboundIds: [] })).json.msg).toBe(
        'inboundIds: at least one inbound id is required',
      );
      expect((await post(`${C}/add`, { client: { email: 'noib@x' } })).json.msg).toMatch(/^inboundIds/);
      expect((await add({ email: 'noib@x' }, [ib.vlessWs!, 987654])).json.msg).toBe('inbound 987654 not found');
      expect((await add({ email: 'noib@x' }, [ib.socks!])).json.msg).toMatch(/does not take clients/);
      expect(await snapshot()).toBe(before);
      expect(events()).toEqual([]);
    });

    it('refuses a duplicate email; rejects bad emails and subIds', async () => {
      await mustAdd({ email: 'dup@x' });
      const before = await snapshot();
      expect((await add({ email: 'dup@x' })).json.msg).toBe('email already in use: dup@x');
      const bad: [unknown, RegExp][] = [
        ['', /email: must not be empty/],
        ['a b@x', /whitespace/],
        ['a/b', /slashes/],
        ['..\\x', /slashes/],
        ['a\u0000b', /control/],
        ['a\u007fb', /control/],
        ['..', /must not be/],
        ['tab\there', /whitespace/],
        [42, /client\.email: must be a string/],
        ['x'.repeat(256), /at most 255/],
      ];
      for (const [email, msg] of bad) {
        const r = await add({ email });
        expect(r.json.success, String(email)).toBe(false);
        expect(r.json.msg).toMatch(msg);
      }
      expect((await add({ email: 'sub@x', subId: '../etc' })).json.msg).toMatch(/subId/);
      expect((await add({ email: 'sub@x', subId: 'has space' })).json.msg).toMatch(/subId/);
      expect(await snapshot()).toBe(before);
    });

    it('wrong types and malformed JSON', async () => {
      const before = await snapshot();
      const cases: [unknown, RegExp][] = [
        ['{"client": {', /malformed JSON/],
        [
          { client: { email: 'w@x', totalGB: 'lots' }, inboundIds: [ib.vlessWs] },
          /client\.totalGB: must be an integer/,
        ],
        [{ client: { email: 'w@x', totalGB: -1 }, inboundIds: [ib.vlessWs] }, /client\.totalGB: must be at least 0/],
        [
          { client: { email: 'w@x', enable: 'maybe' }, inboundIds: [ib.vlessWs] },
          /client\.enable: must be true or false/,
        ],
        [{ client: { email: 'w@x', expiryTime: 1.5 }, inboundIds: [ib.vlessWs] }, /client\.expiryTime/],
        [{ client: { email: 'w@x' }, inboundIds: 'all' }, /inboundIds/],
        [{ client: { email: 'w@x' }, inboundIds: [-3] }, /inboundIds\.0/],
        [{ client: 'nope', inboundIds: [ib.vlessWs] }, /client/],
        [{ client: { email: 'w@x', reverse: 5 }, inboundIds: [ib.vlessWs] }, /client\.reverse/],
        [{ client: { email: 'w@x' }, inboundIds: Array.from({ length: 1001 }, (_, i) => i + 1) }, /at most 1000/],
      ];
      for (const [body, msg] of cases) {
        const r = await post(`${C}/add`, body);
        expect(r.json.success, JSON.stringify(body).slice(0, 80)).toBe(false);
        expect(r.json.msg).toMatch(msg);
      }
      expect(await snapshot()).toBe(before);
    });
  });

  describe('update, del, attach, detach', () => {
    it('update replaces the record, keeps omitted secrets, shows in every attached inbound', async () => {
      const c = await mustAdd({ email: 'upd@x', comment: 'old', totalGB: 5, group: 'g-upd', tgId: 9 }, [
        ib.vlessWs!,
        ib.trojan!,
      ]);
      const r = await post(`${C}/update/upd@x`, {
        email: 'upd@x',
        totalGB: 77,
        expiryTime: 123456789000,
        enable: false,
      });
      expect(r.json.success, r.json.msg).toBe(true);
      expect(r.json.obj).toMatchObject({
        comment: '',
        totalGB: 77,
        group: '',
        tgId: 0,
        enable: false,
        uuid: c.uuid,
        password: c.password,
        subId: c.subId,
      });
      expect(events()).toEqual([{ emails: ['upd@x'], action: 'update' }]);
      for (const id of [ib.vlessWs!, ib.trojan!]) {
        const p = (await get(`${I}/get/${id}`)).json.obj.settings.clients.find((x: any) => x.email === 'upd@x');
        expect(p).toMatchObject({ totalGB: 77, expiryTime: 123456789000, enable: false });
      }
      // {client: {...}} form too
      const wrapped = await post(`${C}/update/upd@x`, { client: { email: 'upd@x', comment: 'wrapped' } });
      expect(wrapped.json.obj.comment).toBe('wrapped');
    });

    it('update can rename the email (counters follow) but not onto a taken one', async () => {
      await mustAdd({ email: 'ren-a@x' });
      await mustAdd({ email: 'ren-b@x' });
      await t.store.traffic.applyDeltas(
        { clients: [{ email: 'ren-a@x', up: 5, down: 6 }], inbounds: [], outbounds: [] },
        t.clock.now(),
      );
      expect((await post(`${C}/update/ren-a@x`, { email: 'ren-b@x' })).json.msg).toBe('email already in use: ren-b@x');
      const r = await post(`${C}/update/ren-a@x`, { email: 'ren-c@x' });
      expect(r.json.success, r.json.msg).toBe(true);
      expect((await clientOf('ren-c@x')).client.traffic).toMatchObject({ up: 5, down: 6 });
      expect((await get(`${C}/get/ren-a@x`)).json.msg).toBe('client ren-a@x not found');
      expect(events().at(-1)).toEqual({ emails: ['ren-a@x', 'ren-c@x'], action: 'update' });
      expect((await post(`${C}/update/nobody@x`, { email: 'nobody@x' })).json.msg).toBe('client nobody@x not found');
    });

    it('del removes from every inbound, drops traffic unless keepTraffic=1, tombstones; re-adding clears the tombstone', async () => {
      await mustAdd({ email: 'del@x' }, [ib.vlessWs!, ib.vmess!]);
      await t.store.traffic.applyDeltas(
        { clients: [{ email: 'del@x', up: 100, down: 200 }], inbounds: [], outbounds: [] },
        t.clock.now(),
      );
      expect((await post(`${C}/del/del@x?keepTraffic=1`)).json.success).toBe(true);
      expect(events()).toEqual([{ emails: ['del@x'], action: 'del' }]);
      expect(await t.store.clients.isTombstoned('del@x')).toBe(true);
      for (const id of [ib.vlessWs!, ib.vmess!]) {
        expect((await get(`${I}/get/${id}`)).json.obj.settings.clients.some((x: any) => x.email === 'del@x')).toBe(
          false,
        );
      }
      // re-created by the operator: allowed, tombstone removed, kept counters come back
      const again = await mustAdd({ email: 'del@x' });
      expect(again.email).toBe('del@x');
      expect(await t.store.clients.isTombstoned('del@x')).toBe(false);
      expect((await clientOf('del@x')).client.traffic).toMatchObject({ up: 100, down: 200 });
      expect((await post(`${C}/del/del@x`)).json.success).toBe(true);
      await mustAdd({ email: 'del@x' });
      expect((await clientOf('del@x')).client.traffic).toMatchObject({ up: 0, down: 0 });
      expect((await post(`${C}/del/ghost@x`)).json.msg).toBe('client ghost@x not found');
      expect((await post(`${C}/del/del@x?keepTraffic=yes`)).json.msg).toMatch(/keepTraffic/);
    });

    it('attach fills missing secrets; detach keeps the client', async () => {
      const c = await mustAdd({ email: 'att@x' }, [ib.vlessWs!]);
      expect(c.password).toBe('');
      const r = await post(`${C}/att@x/attach`, { inboundIds: [ib.trojan, ib.vlessWs] });
      expect(r.json.success, r.json.msg).toBe(true);
      expect(r.json.obj.inboundIds).toEqual([ib.vlessWs, ib.trojan]);
      const after = (await clientOf('att@x')).client;
      expect(after.password).not.toBe('');
      expect(after.uuid).toBe(c.uuid);
      expect(events()).toEqual([{ emails: ['att@x'], action: 'attach' }]);
      expect((await post(`${C}/att@x/attach`, { inboundIds: [999999] })).json.msg).toBe('inbound 999999 not found');
      expect((await post(`${C}/att@x/attach`, { inboundIds: [] })).json.msg).toMatch(/at least one/);
      const d = await post(`${C}/att@x/detach`, { inboundIds: [ib.vlessWs, ib.trojan] });
      expect(d.json.obj.inboundIds).toEqual([]);
      expect((await clientOf('att@x')).client.email).toBe('att@x');
      expect((await post(`${C}/nobody@x/attach`, { inboundIds: [ib.vlessWs] })).json.msg).toBe(
        'client nobody@x not found',
      );
      expect((await post(`${C}/att@x/detach`, { inboundIds: 'x' })).json.msg).toMatch(/inboundIds/);
    });
  });

  describe('traffic, IPs, online', () => {
    it('resetTraffic zeroes and re-enables a depleted client; updateTraffic sets absolute values; traffic/:email', async () => {
      await mustAdd({ email: 'tr@x', totalGB: 1000 });
      await t.store.traffic.applyDeltas(
        { clients: [{ email: 'tr@x', up: 600, down: 400 }], inbounds: [], outbounds: [] },
        t.clock.now(),
      );
      await t.store.traffic.enforce(t.clock.now());
      const dep = (await clientOf('tr@x')).client;
      expect(dep.enable).toBe(false);
      expect(dep.traffic.enable).toBe(false);
      expect((await get(`${C}/traffic/tr@x`)).json.obj).toEqual({
        email: 'tr@x',
        up: 600,
        down: 400,
        total: 1000,
        expiryTime: 0,
      });
      t.emitted.length = 0;
      expect((await post(`${C}/resetTraffic/tr@x`)).json.success).toBe(true);
      const back = (await clientOf('tr@x')).client;
      expect(back).toMatchObject({ enable: true, traffic: { up: 0, down: 0, enable: true } });
      expect(events()).toEqual([{ emails: ['tr@x'], action: 'resetTraffic' }]);
      expect((await post(`${C}/updateTraffic/tr@x`, { upload: 11, download: 22 })).json.success).toBe(true);
      expect((await get(`${C}/traffic/tr@x`)).json.obj).toMatchObject({ up: 11, down: 22 });
      expect((await post(`${C}/updateTraffic/tr@x`, { upload: -1, download: 0 })).json.msg).toMatch(/upload/);
      expect((await post(`${C}/updateTraffic/tr@x`, { upload: 1 })).json.msg).toMatch(/download/);
      expect((await post(`${C}/updateTraffic/ghost@x`, { upload: 1, download: 1 })).json.msg).toBe(
        'client ghost@x not found',
      );
      expect((await get(`${C}/traffic/ghost@x`)).json.msg).toBe('client ghost@x not found');
      expect((await post(`${C}/resetTraffic/ghost@x`)).json.msg).toBe('client ghost@x not found');
    });

    it('bulkResetTraffic and resetAllTraffics (event only when a counter moved)', async () => {
      await mustAdd({ email: 'bt1@x' });
      await mustAdd({ email: 'bt2@x' });
      await t.store.traffic.applyDeltas(
        {
          clients: [
            { email: 'bt1@x', up: 1, down: 1 },
            { email: 'bt2@x', up: 2, down: 2 },
          ],
          inbounds: [],
          outbounds: [],
        },
        t.clock.now(),
      );
      const r = await post(`${C}/bulkResetTraffic`, { emails: ['bt1@x', 'ghost@x'] });
      expect(r.json.obj).toEqual({ affected: 1 });
      expect((await clientOf('bt1@x')).client.traffic.up).toBe(0);
      expect((await clientOf('bt2@x')).client.traffic.up).toBe(2);
      t.emitted.length = 0;
      expect((await post(`${C}/resetAllTraffics`)).json.success).toBe(true);
      expect((await clientOf('bt2@x')).client.traffic.up).toBe(0);
      expect(events()).toEqual([{ emails: 'all', action: 'resetAllTraffics' }]);
      t.emitted.length = 0;
      await post(`${C}/resetAllTraffics`);
      expect(events()).toEqual([]);
    });

    it('onlines, lastOnline, ips and clearIps', async () => {
      await mustAdd({ email: 'on@x' });
      await t.store.traffic.applyDeltas(
        { clients: [{ email: 'on@x', up: 1, down: 1 }], inbounds: [], outbounds: [] },
        t.clock.now(),
      );
      expect((await post(`${C}/onlines`)).json.obj).toContain('on@x');
      expect(await t.services.clients.onlines()).toContain('on@x');
      const last = (await post(`${C}/lastOnline`)).json.obj;
      expect(last['on@x']).toBe(Math.floor(t.clock.now() / 1000));
      t.clock.advance(21_000);
      expect((await post(`${C}/onlines`)).json.obj).not.toContain('on@x');
      await t.store.traffic.recordIps([{ email: 'on@x', ip: '198.51.100.4' }], Math.floor(t.clock.now() / 1000));
      const ips = (await post(`${C}/ips/on@x`)).json.obj;
      expect(ips).toHaveLength(1);
      expect(ips[0]).toMatch(/^198\.51\.100\.4 \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/);
      expect((await post(`${C}/clearIps/on@x`)).json.success).toBe(true);
      expect((await post(`${C}/ips/on@x`)).json.obj).toEqual([]);
      expect((await post(`${C}/ips/ghost@x`)).json.msg).toBe('client ghost@x not found');
    });
  });

  describe('bulk', () => {
    it('bulkAdjust with the skip reasons', async () => {
      const now = t.clock.now();
      await mustAdd({ email: 'adj1@x', expiryTime: now + 10 * DAY, totalGB: 1000 });
      await mustAdd({ email: 'adj2@x', expiryTime: 0, totalGB: 0 });
      await mustAdd({ email: 'adj3@x', expiryTime: -5 * DAY, totalGB: 50 });
      const r = await post(`${C}/bulkAdjust`, {
        emails: ['adj1@x', 'adj2@x', 'adj3@x', 'ghost@x', 'adj1@x'],
        addDays: 2,
        addBytes: 100,
      });
      expect(r.json.success, r.json.msg).toBe(true);
      expect(r.json.obj.adjusted).toBe(2);
      expect(r.json.obj.skipped).toEqual([
        { email: 'adj2@x', reason: 'unlimited expiry' },
        { email: 'ghost@x', reason: 'client not found' },
      ]);
      expect((await clientOf('adj1@x')).client).toMatchObject({ expiryTime: now + 12 * DAY, totalGB: 1100 });
      expect((await clientOf('adj3@x')).client).toMatchObject({ expiryTime: -7 * DAY, totalGB: 150 });
      expect((await clientOf('adj2@x')).client).toMatchObject({ expiryTime: 0, totalGB: 0 });
      expect(events()).toEqual([{ emails: ['adj1@x', 'adj3@x'], action: 'bulkAdjust' }]);
      const neg = await post(`${C}/bulkAdjust`, { emails: ['adj1@x', 'adj2@x'], addDays: -100, addBytes: -5000 });
      // days still apply to adj1 (an absolute time may move into the past); its quota cannot go below 1 byte
      expect(neg.json.obj).toEqual({
        adjusted: 1,
        skipped: [
          { email: 'adj1@x', reason: 'reduction exceeds remaining quota' },
          { email: 'adj2@x', reason: 'unlimited expiry' },
        ],
      });
      expect((await clientOf('adj1@x')).client).toMatchObject({ expiryTime: now - 88 * DAY, totalGB: 1100 });
      const delay = await post(`${C}/bulkAdjust`, { emails: ['adj3@x'], addDays: -7 });
      expect(delay.json.obj).toEqual({
        adjusted: 0,
        skipped: [{ email: 'adj3@x', reason: 'reduction exceeds delay window' }],
      });
      const bytesOnly = await post(`${C}/bulkAdjust`, { emails: ['adj2@x'], addBytes: 5 });
      expect(bytesOnly.json.obj.skipped).toEqual([{ email: 'adj2@x', reason: 'unlimited traffic' }]);
      expect((await post(`${C}/bulkAdjust`, { emails: ['adj1@x'] })).json.msg).toMatch(/nothing to adjust/);
      expect((await post(`${C}/bulkAdjust`, { emails: 'adj1@x', addDays: 1 })).json.msg).toMatch(/^emails/);
    });

    it('bulkAdjust re-enables an auto-disabled client its new quota no longer exhausts', async () => {
      await mustAdd({ email: 'revive@x', totalGB: 100 });
      await t.store.traffic.applyDeltas(
        { clients: [{ email: 'revive@x', up: 100, down: 0 }], inbounds: [], outbounds: [] },
        t.clock.now(),
      );
      await t.store.traffic.enforce(t.clock.now());
      expect((await clientOf('revive@x')).client.enable).toBe(false);
      await post(`${C}/bulkAdjust`, { emails: ['revive@x'], addBytes: 100 });
      expect((await clientOf('revive@x')).client).toMatchObject({
        enable: true,
        totalGB: 200,
        traffic: { enable: true },
      });
    });

    it('bulkDel reports unknown emails as skipped', async () => {
      await mustAdd({ email: 'bd1@x' });
      await mustAdd({ email: 'bd2@x' });
      const r = await post(`${C}/bulkDel`, { emails: ['bd1@x', 'nope@x', 'bd2@x'], keepTraffic: false });
      expect(r.json.obj).toEqual({ deleted: 2, skipped: [{ email: 'nope@x', reason: 'client not found' }] });
      expect(events()).toEqual([{ emails: ['bd1@x', 'bd2@x'], action: 'bulkDel' }]);
      expect(await t.store.clients.isTombstoned('bd2@x')).toBe(true);
    });

    it('bulkCreate: each bad item skipped with its reason, one event at the end', async () => {
      await mustAdd({ email: 'bc-exists@x' });
      const r = await post(`${C}/bulkCreate`, [
        { client: { email: 'bc1@x' }, inboundIds: [ib.vlessWs] },
        { client: { email: 'bc2@x', totalGB: 5 }, inboundIds: [ib.vmess, ib.trojan] },
        { client: { email: 'bc1@x' }, inboundIds: [ib.vlessWs] },
        { client: { email: 'bc-exists@x' }, inboundIds: [ib.vlessWs] },
        { client: { email: 'bad email' }, inboundIds: [ib.vlessWs] },
        { client: { email: 'bc3@x' }, inboundIds: [424242] },
        { client: { email: 'bc4@x' }, inboundIds: [] },
        { client: { email: 'bc5@x', totalGB: 'x' }, inboundIds: [ib.vlessWs] },
        'garbage',
      ]);
      expect(r.json.success, r.json.msg).toBe(true);
      expect(r.json.obj.created).toBe(2);
      const reasons = Object.fromEntries(r.json.obj.skipped.map((x: any) => [x.email, x.reason]));
      expect(r.json.obj.skipped).toHaveLength(7);
      expect(reasons['bc-exists@x']).toBe('email already in use');
      expect(reasons['bad email']).toMatch(/whitespace/);
      expect(reasons['bc3@x']).toBe('inbound 424242 not found');
      expect(reasons['bc4@x']).toMatch(/at least one/);
      expect(reasons['bc5@x']).toMatch(/totalGB/);
      expect(r.json.obj.skipped.filter((x: any) => x.email === 'bc1@x')).toEqual([
        { email: 'bc1@x', reason: 'duplicate email in this request' },
      ]);
      expect(events()).toEqual([{ emails: ['bc1@x', 'bc2@x'], action: 'bulkCreate' }]);
      expect((await clientOf('bc2@x')).client).toMatchObject({ totalGB: 5 });
      expect((await clientOf('bc2@x')).inboundIds).toEqual([ib.vmess, ib.trojan]);
    });

    it('summary email lists are capped at 200 while the counts stay exact', async () => {
      const r = await post(
        `${C}/bulkCreate`,
        Array.from({ length: 205 }, (_, i) => ({
          client: { email: `cap-off${i}@x`, enable: false },
          inboundIds: [ib.vlessWs],
        })),
      );
      expect(r.json.obj.created).toBe(205);
      const o = (await get(`${C}/list/paged?filter=deactive&pageSize=200`)).json.obj;
      expect(o.summary.deactiveCount).toBe(o.filtered);
      expect(o.summary.deactiveCount).toBeGreaterThanOrEqual(205);
      expect(o.summary.deactive).toHaveLength(200);
      expect(o.items).toHaveLength(200);
      const page2 = (await get(`${C}/list/paged?filter=deactive&pageSize=200&page=2`)).json.obj;
      expect(page2.items.length).toBe(o.filtered - 200);
      expect(
        (await post(`${C}/bulkDel`, { emails: Array.from({ length: 205 }, (_, i) => `cap-off${i}@x`) })).json.obj
          .deleted,
      ).toBe(205);
    });

    it('bulk arrays are capped at 10,000', async () => {
      const before = await snapshot();
      const many = Array.from({ length: 10_001 }, (_, i) => `cap${i}@x`);
      expect((await post(`${C}/bulkDel`, { emails: many })).json.msg).toMatch(/at most 10000/);
      expect((await post(`${C}/bulkResetTraffic`, { emails: many })).json.msg).toMatch(/at most 10000/);
      expect((await post(`${C}/bulkAssignGroup`, { emails: many, group: 'g' })).json.msg).toMatch(/at most 10000/);
      expect((await post(`${C}/bulkAdjust`, { emails: many, addDays: 1 })).json.msg).toMatch(/at most 10000/);
      expect(
        (
          await post(
            `${C}/bulkCreate`,
            many.map((email) => ({ client: { email }, inboundIds: [ib.vlessWs] })),
          )
        ).json.msg,
      ).toMatch(/at most 10000/);
      expect((await post(`${C}/bulkCreate`, { not: 'an array' })).json.msg).toMatch(/must be an array/);
      expect(await snapshot()).toBe(before);
    });

    it('bulkAssignGroup creates a persistent group; empty group clears the label', async () => {
      await mustAdd({ email: 'ga1@x' });
      await mustAdd({ email: 'ga2@x' });
      const r = await post(`${C}/bulkAssignGroup`, { emails: ['ga1@x', 'ga2@x', 'ghost@x'], group: 'Alpha' });
      expect(r.json.obj).toEqual({ affected: 2 });
      expect((await get(`${C}/groups/Alpha/emails`)).json.obj).toEqual(['ga1@x', 'ga2@x']);
      expect((await post(`${C}/bulkAssignGroup`, { emails: ['ga1@x', 'ga2@x'], group: '' })).json.obj).toEqual({
        affected: 2,
      });
      const groups = (await get(`${C}/groups`)).json.obj;
      expect(groups.find((g: any) => g.name === 'Alpha')).toEqual({ name: 'Alpha', clientCount: 0 });
      expect((await post(`${C}/bulkAssignGroup`, { emails: ['ga1@x'], group: 'a/b' })).json.msg).toMatch(/slashes/);
    });
  });

  describe('groups', () => {
    it('create, list (sorted case-insensitively, with empty groups and counts), rename, delete', async () => {
      expect((await post(`${C}/groups/create`, { name: 'zeta' })).json.obj).toEqual({ name: 'zeta' });
      expect((await post(`${C}/groups/create`, { name: 'zeta' })).json.msg).toBe('group name already exists: zeta');
      await mustAdd({ email: 'gr1@x', group: 'Beta' });
      await mustAdd({ email: 'gr2@x', group: 'Beta' });
      await mustAdd({ email: 'gr3@x', group: 'beta2' });
      expect((await post(`${C}/groups/create`, { name: 'Beta' })).json.msg).toBe('group name already exists: Beta');
      const list = (await get(`${C}/groups`)).json.obj as { name: string; clientCount: number }[];
      const names = list.map((g) => g.name);
      expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
      expect(list).toContainEqual({ name: 'zeta', clientCount: 0 });
      expect(list).toContainEqual({ name: 'Beta', clientCount: 2 });
      t.emitted.length = 0;
      const ren = await post(`${C}/groups/rename`, { oldName: 'Beta', newName: 'Gamma' });
      expect(ren.json.obj).toEqual({ affected: 2 });
      expect(events()).toEqual([{ emails: ['gr1@x', 'gr2@x'], action: 'groupRename' }]);
      expect((await clientOf('gr1@x')).client.group).toBe('Gamma');
      expect((await get(`${C}/groups/Beta/emails`)).json.obj).toEqual([]);
      expect((await post(`${C}/groups/rename`, { oldName: 'zeta', newName: 'eta' })).json.obj).toEqual({ affected: 0 });
      expect((await get(`${C}/groups`)).json.obj).toContainEqual({ name: 'eta', clientCount: 0 });
      expect((await post(`${C}/groups/rename`, { oldName: 'missing', newName: 'x' })).json.msg).toBe(
        'group missing not found',
      );
      const del = await post(`${C}/groups/delete`, { name: 'Gamma' });
      expect(del.json.obj).toEqual({ affected: 2 });
      expect((await clientOf('gr2@x')).client.group).toBe('');
      expect((await get(`${C}/groups`)).json.obj.some((g: any) => g.name === 'Gamma')).toBe(false);
      expect((await post(`${C}/groups/delete`, { name: 'Gamma' })).json.msg).toBe('group Gamma not found');
      expect((await get(`${C}/groups/${enc('a b')}/emails`)).json.obj).toEqual([]);
    });

    it('bad group names change nothing', async () => {
      const before = await snapshot();
      for (const body of [
        { name: '' },
        { name: ' ' },
        { name: 'a/b' },
        { name: 'x\u0001' },
        { name: 'y'.repeat(65) },
        { name: 5 },
        {},
      ]) {
        const r = await post(`${C}/groups/create`, body);
        expect(r.json.success, JSON.stringify(body)).toBe(false);
      }
      expect((await post(`${C}/groups/rename`, { oldName: 'eta', newName: '../x' })).json.msg).toMatch(/newName/);
      expect((await post(`${C}/groups/rename`, { oldName: 'eta' })).json.msg).toMatch(/newName/);
      expect((await post(`${C}/groups/delete`, { name: '..' })).json.success).toBe(false);
      expect(await snapshot()).toBe(before);
    });
  });

  describe('bad input on keyed endpoints', () => {
    it('path traversal and control characters in emails; unknown emails', async () => {
      const before = await snapshot();
      const paths = [
        `${C}/get/${enc('../../etc/passwd')}`,
        `${C}/get/${enc('a\u0000b')}`,
        `${C}/get/..`,
        `${C}/traffic/${enc('a b')}`,
      ];
      for (const p of paths) {
        const r = await get(p);
        expect([200, 404]).toContain(r.status);
        if (r.status === 200) expect(r.json.success, p).toBe(false);
      }
      for (const p of [
        `${C}/del/${enc('../x')}`,
        `${C}/resetTraffic/${enc('x\ny')}`,
        `${C}/${enc('a\\b')}/attach`,
        `${C}/clearIps/${enc('a\tb')}`,
      ]) {
        const r = await post(p, { inboundIds: [ib.vlessWs] });
        expect(r.json.success, p).toBe(false);
        expect(r.json.msg).toMatch(/^email: /);
      }
      expect((await get(`${C}/get/unknown@x`)).json.msg).toBe('client unknown@x not found');
      expect((await post(`${C}/update/unknown@x`, '{"email":')).json.msg).toMatch(/malformed JSON/);
      expect((await post(`${C}/update/gen@x`, [1])).json.msg).toMatch(/must be a client object/);
      expect((await post(`${C}/update/gen@x`, { email: 'gen@x', limitIp: 'x' })).json.msg).toMatch(/limitIp/);
      expect(await snapshot()).toBe(before);
      expect(events()).toEqual([]);
    });
  });

  describe('concurrency', () => {
    it('50 parallel adds of distinct emails all succeed; 20 parallel adds of one email: exactly one', async () => {
      const distinct = await Promise.all(
        Array.from({ length: 50 }, (_, i) => add({ email: `par${i}@x` }, [ib.vlessWs!, ib.vmess!])),
      );
      expect(distinct.filter((r) => r.json.success)).toHaveLength(50);
      const same = await Promise.all(Array.from({ length: 20 }, () => add({ email: 'race@x' }, [ib.vlessWs!])));
      const wins = same.filter((r) => r.json.success);
      expect(wins).toHaveLength(1);
      for (const r of same.filter((x) => !x.json.success)) expect(r.json.msg).toBe('email already in use: race@x');
      const all = (await get(`${C}/list`)).json.obj as any[];
      expect(all.filter((c) => c.email === 'race@x')).toHaveLength(1);
      for (let i = 0; i < 50; i++)
        expect(all.find((c) => c.email === `par${i}@x`)?.inboundIds).toEqual([ib.vlessWs, ib.vmess]);
    });

    it('parallel attaches of one client do not lose an attachment', async () => {
      await mustAdd({ email: 'multi@x' }, [ib.vlessWs!]);
      await Promise.all(
        [ib.vmess, ib.trojan, ib.vlessReality, ib.hy2].map((id) => post(`${C}/multi@x/attach`, { inboundIds: [id] })),
      );
      expect((await clientOf('multi@x')).inboundIds).toEqual(
        [ib.vlessWs, ib.vmess, ib.trojan, ib.vlessReality, ib.hy2].sort((a, b) => a! - b!),
      );
    });
  });
});
