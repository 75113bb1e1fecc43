// The traffic use case end to end over a real store (libsql and PostgreSQL) and the fake core: deltas by
// email/tag, events, online, enforcement (quota, expiry, delayed start, auto-renew), one core restart,
// full sweeps after client changes, flush, and client IPs with the IP-limit log.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { TrafficService } from '../../domain/traffic/service.js';
import type { AccessObservation } from '../../domain/traffic/ip-limit.js';
import type { CoreStat } from '../../domain/ports/core.js';

const I = '/panel/api/inbounds';
const C = '/panel/api/clients';
const DAY = 86_400_000;

describe.each(testDatabases())('traffic service on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let port = 41000;
  let inboundId = 0;
  let tag = '';
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const get = (path: string) => call(t, 'GET', path, undefined, s);
  const events = (name: string) => t.emitted.filter((e) => e.name === name).map((e) => e.payload as any);
  const traffic = async (email: string) => (await get(`${C}/traffic/${encodeURIComponent(email)}`)).json.obj;
  const client = async (email: string) => (await get(`${C}/get/${encodeURIComponent(email)}`)).json.obj.client;
  const add = async (client: Record<string, unknown>) => {
    const r = await post(`${C}/add`, { client, inboundIds: [inboundId] });
    expect(r.json.success, r.json.msg).toBe(true);
  };
  /** Sets the fake core's cumulative counters. */
  const counters = (
    users: Record<string, [number, number]>,
    inbound?: [number, number],
    outbounds: Record<string, [number, number]> = {},
  ) => {
    const stats: CoreStat[] = [];
    for (const [email, [u, d]] of Object.entries(users)) {
      stats.push(
        { name: `user>>>${email}>>>traffic>>>uplink`, value: u },
        { name: `user>>>${email}>>>traffic>>>downlink`, value: d },
      );
    }
    if (inbound)
      stats.push(
        { name: `inbound>>>${tag}>>>traffic>>>uplink`, value: inbound[0] },
        { name: `inbound>>>${tag}>>>traffic>>>downlink`, value: inbound[1] },
      );
    stats.push({ name: 'inbound>>>api>>>traffic>>>uplink', value: 123456 });
    for (const [o, [u, d]] of Object.entries(outbounds)) {
      stats.push(
        { name: `outbound>>>${o}>>>traffic>>>uplink`, value: u },
        { name: `outbound>>>${o}>>>traffic>>>downlink`, value: d },
      );
    }
    t.core.stats = stats;
  };
  const tick = async () => {
    t.clock.advance(5000);
    return t.services.traffic.tick();
  };

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    const r = await post(`${I}/add`, {
      port: ++port,
      protocol: 'vless',
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp' },
    });
    expect(r.json.success, r.json.msg).toBe(true);
    inboundId = r.json.obj.id;
    tag = r.json.obj.tag;
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    t.core.stats = [];
    await tick(); // settle baselines
    t.emitted.length = 0;
    t.core.calls.length = 0;
  });

  it('adds deltas for clients by email, inbounds by tag and outbounds; emits only what moved; online and lastOnline', async () => {
    await add({ email: 'acc@x' });
    await add({ email: 'idle@x' });
    counters({ 'acc@x': [1000, 5000] }, [1000, 5000], { direct: [10, 20] });
    const r = await tick();
    expect(r.deltas.clients).toEqual([{ email: 'acc@x', up: 1000, down: 5000 }]);
    expect(await traffic('acc@x')).toMatchObject({ up: 1000, down: 5000 });
    const inb = (await get(`${I}/get/${inboundId}`)).json.obj;
    expect([inb.up, inb.down]).toEqual([1000, 5000]);
    expect((await get('/panel/core/getOutboundsTraffic')).json.obj).toEqual([
      { tag: 'direct', up: 10, down: 20, total: 30 },
    ]);
    const tickEvent = events('traffic.tick').at(-1);
    expect(tickEvent.clients).toEqual([{ email: 'acc@x', up: 1000, down: 5000 }]);
    expect(tickEvent.inbounds).toEqual([{ tag, up: 1000, down: 5000 }]);
    expect(tickEvent.onlines).toContain('acc@x');
    expect(t.services.traffic.onlines()).toEqual(['acc@x']);
    expect((await client('acc@x')).traffic.lastOnline).toBe(Math.floor(t.clock.now() / 1000));
    expect((await client('idle@x')).traffic.lastOnline).toBe(0);
    expect((await post(`${C}/onlines`)).json.obj).toContain('acc@x');

    // Same counters again: nothing moved, nothing added, the event carries no counters.
    t.emitted.length = 0;
    await tick();
    expect(await traffic('acc@x')).toMatchObject({ up: 1000, down: 5000 });
    expect(events('traffic.tick')).toEqual([
      { at: t.clock.now(), clients: [], inbounds: [], outbounds: [], onlines: ['acc@x'] },
    ]);
    // 20 s without movement: offline.
    t.clock.advance(20_000);
    await tick();
    expect(t.services.traffic.onlines()).toEqual([]);
    expect((await post(`${C}/onlines`)).json.obj).not.toContain('acc@x');
  });

  it('a restarted core (new pid, counters back near zero) is counted from zero without double counting', async () => {
    await add({ email: 'restart@x' });
    counters({ 'restart@x': [100, 1000] });
    await tick();
    counters({ 'restart@x': [150, 1500] });
    await tick();
    expect(await traffic('restart@x')).toMatchObject({ up: 150, down: 1500 });
    t.core.current = { ...t.core.current, pid: (t.core.current.pid ?? 0) + 1 };
    counters({ 'restart@x': [200, 300] }); // bigger than nothing, smaller than before: all of it is new
    await tick();
    expect(await traffic('restart@x')).toMatchObject({ up: 350, down: 1800 });
    counters({ 'restart@x': [210, 300] });
    await tick();
    expect(await traffic('restart@x')).toMatchObject({ up: 360, down: 1800 });
    // Backwards without a pid change (pid unknown to the port) also counts from zero.
    counters({ 'restart@x': [5, 5] });
    await tick();
    expect(await traffic('restart@x')).toMatchObject({ up: 365, down: 1805 });
  });

  it('a client over quota is depleted in the tick that crosses it, works again after resetTraffic', async () => {
    await add({ email: 'quota@x', totalGB: 1000 });
    counters({ 'quota@x': [400, 599] });
    let r = await tick();
    expect(r.enforcement!.depleted).toEqual([]);
    counters({ 'quota@x': [400, 600] });
    r = await tick();
    expect(r.enforcement!.depleted).toEqual(['quota@x']);
    expect(events('clients.changed')).toContainEqual({ emails: ['quota@x'], action: 'depleted' });
    const c = await client('quota@x');
    expect([c.enable, c.traffic.enable]).toEqual([false, false]);
    // the core sync reacts to the event on its own schedule
    await vi.waitFor(() => expect(t.core.ops('removeUser').some(([, email]) => email === 'quota@x')).toBe(true), {
      timeout: 5000,
    });
    expect((await post(`${C}/resetTraffic/quota%40x`)).json.success).toBe(true);
    const back = await client('quota@x');
    expect([back.enable, back.traffic.enable, back.traffic.up]).toEqual([true, true, 0]);
    // The core's counters did not move: the next tick adds nothing and does not deplete again.
    r = await tick();
    expect(r.enforcement!.depleted).toEqual([]);
    counters({ 'quota@x': [900, 600] }); // 500 more
    await tick();
    expect(await traffic('quota@x')).toMatchObject({ up: 500, down: 0 });
  });

  it('expiry exactly now depletes; restartCoreOnClientDisable restarts the core once however many were disabled', async () => {
    expect((await post('/panel/setting/update', { restartCoreOnClientDisable: true })).json.success).toBe(true);
    try {
      const at = t.clock.now() + 5000;
      await add({ email: 'exp1@x', expiryTime: at });
      await add({ email: 'exp2@x', expiryTime: at });
      await add({ email: 'exp3@x', expiryTime: at + 10_000 });
      t.core.calls.length = 0;
      const r = await tick(); // clock is now exactly `at`
      expect(t.clock.now()).toBe(at);
      expect([...r.enforcement!.depleted].sort()).toEqual(['exp1@x', 'exp2@x']);
      expect(r.coreRestarted).toBe(true);
      expect(t.core.ops('restart')).toHaveLength(1);
      const r2 = await tick();
      expect(r2.enforcement!.depleted).toEqual([]);
      expect(t.core.ops('restart')).toHaveLength(1);
    } finally {
      await post('/panel/setting/update', { restartCoreOnClientDisable: false });
    }
  });

  it('without restartCoreOnClientDisable no restart happens', async () => {
    await add({ email: 'norestart@x', expiryTime: t.clock.now() + 1 });
    const r = await tick();
    expect(r.enforcement!.depleted).toEqual(['norestart@x']);
    expect(r.coreRestarted).toBe(false);
    expect(t.core.ops('restart')).toHaveLength(0);
  });

  it('delayed start becomes now + duration on the first tick in which the client moved', async () => {
    await add({ email: 'delay@x', expiryTime: -2 * DAY });
    await tick();
    expect((await client('delay@x')).expiryTime).toBe(-2 * DAY);
    counters({ 'delay@x': [1, 1] });
    await tick();
    const started = t.clock.now();
    expect((await client('delay@x')).expiryTime).toBe(started + 2 * DAY);
    expect((await client('delay@x')).enable).toBe(true);
    counters({ 'delay@x': [2, 2] });
    await tick();
    expect((await client('delay@x')).expiryTime).toBe(started + 2 * DAY);
  });

  it('auto-renew: expiry passed with reset days → expiry moves by whole periods, counters zeroed, re-enabled', async () => {
    const expiry = t.clock.now() + 7000; // passed on the second tick
    await add({ email: 'renew@x', expiryTime: expiry, reset: 1, totalGB: 100 });
    counters({ 'renew@x': [100, 0] });
    let r = await tick(); // quota used: depleted first
    expect(r.enforcement!.depleted).toEqual(['renew@x']);
    r = await tick(); // expiry passed: renewed
    expect(r.enforcement!.renewed).toEqual(['renew@x']);
    expect(events('clients.changed')).toContainEqual({ emails: ['renew@x'], action: 'renewed' });
    const c = await client('renew@x');
    expect(c.expiryTime).toBe(expiry + DAY);
    expect([c.enable, c.traffic.enable, c.traffic.up, c.traffic.down]).toEqual([true, true, 0, 0]);
  });

  it('a client change (quota lowered below use) is enforced on the next tick without traffic', async () => {
    await add({ email: 'lowered@x', totalGB: 10_000 });
    counters({ 'lowered@x': [3000, 0] });
    await tick();
    const cur = await client('lowered@x');
    const r0 = await post(`${C}/update/lowered%40x`, { ...cur, id: cur.uuid, totalGB: 2000, inboundIds: undefined });
    expect(r0.json.success, r0.json.msg).toBe(true);
    const r = await tick();
    expect(r.enforcement!.depleted).toEqual(['lowered@x']);
  });

  it('flush stores the counters moved since the last tick, without enforcement', async () => {
    await add({ email: 'flush@x', totalGB: 10 });
    counters({ 'flush@x': [7, 8] });
    const d = await t.services.traffic.flush();
    expect(d.clients).toEqual([{ email: 'flush@x', up: 7, down: 8 }]);
    expect(await traffic('flush@x')).toMatchObject({ up: 7, down: 8 });
    expect((await client('flush@x')).enable).toBe(true);
  });

  it('flush announces what it stored, so the paged list counts it at once', async () => {
    await add({ email: 'flush2@x', totalGB: 90 });
    expect((await get(`${C}/list/paged?filter=depleted&search=flush2`)).json.obj.items).toEqual([]);
    t.emitted.length = 0;
    counters({ 'flush2@x': [60, 30] });
    await t.services.traffic.flush();
    expect(events('traffic.tick')).toEqual([
      expect.objectContaining({ at: t.clock.now(), clients: [{ email: 'flush2@x', up: 60, down: 30 }] }),
    ]);
    // quota exactly used by the flushed counters (flush does not enforce: the client is still enabled)
    const o = (await get(`${C}/list/paged?filter=depleted&search=flush2`)).json.obj;
    expect(o.items.map((i: any) => [i.email, i.enable])).toEqual([['flush2@x', true]]);
  });

  it('records client IPs from the access log and writes one IP-limit line per excess IP', async () => {
    await add({ email: 'ips@x', limitIp: 1 });
    await add({ email: 'free@x' });
    const batches: AccessObservation[][] = [];
    const lines: string[] = [];
    const svc = new TrafficService({
      store: t.store,
      core: t.core,
      clock: t.clock,
      events: t.events,
      settings: t.services.settings,
      accessLog: { read: async () => batches.shift() ?? [] },
      ipLimitLog: { append: async (l) => void lines.push(...l) },
    });
    // Off: the log is drained, nothing recorded.
    batches.push([{ email: 'ips@x', ip: '198.51.100.1' }]);
    await svc.tick();
    expect((await post(`${C}/ips/ips%40x`)).json.obj).toEqual([]);
    expect((await post('/panel/setting/update', { ipLimitEnable: true })).json.success).toBe(true);
    try {
      batches.push([
        { email: 'ips@x', ip: '198.51.100.1' },
        { email: 'free@x', ip: '192.0.2.5' },
        { email: 'ghost@x', ip: '192.0.2.6' },
      ]);
      t.clock.advance(1000);
      await svc.tick();
      expect(lines).toEqual([]);
      batches.push([
        { email: 'ips@x', ip: '198.51.100.2' },
        { email: 'free@x', ip: '192.0.2.7' },
      ]);
      t.clock.advance(1000);
      const r = await svc.tick();
      expect(r.ipLimitLines).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} \[LIMIT_IP\] Email = ips@x \|\| SRC = 198\.51\.100\.2$/,
      );
      const ips = (await post(`${C}/ips/ips%40x`)).json.obj as string[];
      expect(ips.join(' ')).toContain('198.51.100.1');
      expect(ips.join(' ')).toContain('198.51.100.2');
      expect((await post(`${C}/ips/ghost%40x`)).json.success).toBe(false);
    } finally {
      await post('/panel/setting/update', { ipLimitEnable: false });
    }
  });
});
