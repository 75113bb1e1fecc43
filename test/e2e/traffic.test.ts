// Real core, real clients: traffic accounting (client and inbound counters, onlines), enforcement (quota,
// expiry, delayed start, auto-renew) cutting off new connections within two poll intervals, counting across a
// core killed from outside without double counting, the final flush on SIGTERM, and the IP-limit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  addClient,
  addInbound,
  curlSocks,
  curlSocksEventually,
  eventually,
  getClient,
  killAll,
  pidAlive,
  startPanel,
  startTarget,
  testCoreBin,
  v2rayClient,
  vmessOutbound,
  type Panel,
  type ProxyClient,
  type Target,
} from './support/index.js';

const bin = testCoreBin();
const KB = 1024;
const MB = 1024 * KB;
const INTERVAL = 1000;
/** "Within two poll intervals", plus slack for a loaded 2-core machine (process scheduling, curl, HTTP). */
const TWO_TICKS = 2 * INTERVAL + 1500;
/** First download through a new client (the client process and the live user add need a moment under load). */
const FIRST = 10_000;

describe.skipIf(!bin)('traffic accounting and enforcement with a real core', () => {
  let panel: Panel;
  let target: Target;
  let vmess: { id: number; port: number; tag: string };
  const clients: ProxyClient[] = [];

  const traffic = async (email: string) =>
    (await panel.api('GET', `/panel/api/clients/traffic/${encodeURIComponent(email)}`)).obj as {
      up: number;
      down: number;
    };
  const inboundCounters = async (id: number) => {
    const r = await panel.api('GET', `/panel/api/inbounds/get/${id}`);
    return { up: r.obj.up as number, down: r.obj.down as number };
  };
  const clientFor = async (uuid: string) => {
    const c = await v2rayClient(bin!, vmessOutbound(vmess.port, uuid));
    clients.push(c);
    return c;
  };
  /** Waits until new connections through the client fail (the client was removed from the core). */
  const cutOff = async (c: ProxyClient, timeoutMs = TWO_TICKS) =>
    eventually(async () => !(await curlSocks(c.socksPort, target.url('/bytes/1000'), 3)).ok, timeoutMs, 100);

  beforeAll(async () => {
    target = await startTarget();
    panel = await startPanel({ coreBin: bin!, env: { PANEL_TRAFFIC_INTERVAL_MS: String(INTERVAL) } });
    await eventually(() => panel.corePid(), 5000);
    vmess = await addInbound(panel, { protocol: 'vmess' });
  });
  afterAll(async () => {
    for (const c of clients) await c.stop();
    await panel?.stop();
    await target?.close();
    await killAll();
  });

  it('client and inbound counters grow by at least the bytes moved within two poll intervals; onlines lists the client', async () => {
    const c = await addClient(panel, 'count@e2e', vmess.id);
    const client = await clientFor(c.uuid);
    const before = await inboundCounters(vmess.id);
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`), FIRST);
    expect(d.bytes).toBe(MB);
    const moved = Date.now();
    await eventually(async () => (await traffic('count@e2e')).down >= MB, TWO_TICKS, 100);
    expect(Date.now() - moved).toBeLessThanOrEqual(TWO_TICKS);
    const t = await traffic('count@e2e');
    expect(t.down).toBeGreaterThanOrEqual(MB);
    expect(t.down).toBeLessThan(MB + 64 * KB); // payload plus HTTP headers, not counted twice
    expect(t.up).toBeGreaterThan(0);
    await eventually(async () => (await inboundCounters(vmess.id)).down - before.down >= MB, TWO_TICKS, 100);
    const onlines = (await panel.api('POST', '/panel/api/clients/onlines')).obj as string[];
    expect(onlines).toContain('count@e2e');
    const last = (await panel.api('GET', `/panel/api/clients/get/${encodeURIComponent('count@e2e')}`)).obj.client
      .traffic.lastOnline as number;
    expect(Math.abs(last - Date.now() / 1000)).toBeLessThan(10);
  });

  it('a client over quota is cut off within two poll intervals and works again after resetTraffic', async () => {
    const c = await addClient(panel, 'quota@e2e', vmess.id, { totalGB: 256 * KB });
    const client = await clientFor(c.uuid);
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`), FIRST);
    expect(d.bytes).toBe(MB); // an open download is not cut mid-way
    await cutOff(client);
    const stored = await getClient(panel, 'quota@e2e');
    expect(stored.enable).toBe(false);
    expect(
      (await panel.api('POST', `/panel/api/clients/resetTraffic/${encodeURIComponent('quota@e2e')}`)).success,
    ).toBe(true);
    const again = await curlSocksEventually(client.socksPort, target.url(`/bytes/${100 * KB}`), TWO_TICKS);
    expect(again.bytes).toBe(100 * KB);
    expect((await getClient(panel, 'quota@e2e')).enable).toBe(true);
  });

  it('a client whose expiry passes is cut off within two poll intervals and works again with a new expiry', async () => {
    const c = await addClient(panel, 'expiry@e2e', vmess.id);
    const client = await clientFor(c.uuid);
    expect((await curlSocksEventually(client.socksPort, target.url('/bytes/1000'), FIRST)).ok).toBe(true);
    const update = async (changes: Record<string, unknown>) => {
      const full = (await panel.api('GET', `/panel/api/clients/get/${encodeURIComponent('expiry@e2e')}`)).obj.client;
      const r = await panel.api('POST', `/panel/api/clients/update/${encodeURIComponent('expiry@e2e')}`, {
        ...full,
        id: full.uuid,
        ...changes,
      });
      expect(r.success, r.msg).toBe(true);
    };
    const expiry = Date.now() + 1500;
    await update({ expiryTime: expiry });
    expect((await curlSocks(client.socksPort, target.url('/bytes/1000'), 3)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, Math.max(0, expiry - Date.now())));
    await cutOff(client);
    expect((await getClient(panel, 'expiry@e2e')).enable).toBe(false);
    await update({ expiryTime: 0, enable: true });
    expect((await curlSocksEventually(client.socksPort, target.url('/bytes/1000'), TWO_TICKS)).ok).toBe(true);
  });

  it('delayed start: the period starts at first use and the client is cut off when it ends', async () => {
    const c = await addClient(panel, 'delayed@e2e', vmess.id, { expiryTime: -3000 });
    // Unused: the period does not run.
    await new Promise((r) => setTimeout(r, 2 * INTERVAL + 500));
    expect(
      (await panel.api('GET', `/panel/api/clients/get/${encodeURIComponent('delayed@e2e')}`)).obj.client.expiryTime,
    ).toBe(-3000);
    const client = await clientFor(c.uuid);
    const firstUse = Date.now();
    expect((await curlSocksEventually(client.socksPort, target.url(`/bytes/${10 * KB}`), FIRST)).ok).toBe(true);
    const started = await eventually(
      async () => {
        const e = (await panel.api('GET', `/panel/api/clients/get/${encodeURIComponent('delayed@e2e')}`)).obj.client
          .expiryTime as number;
        return e > 0 ? e : 0;
      },
      TWO_TICKS,
      100,
    );
    expect(started).toBeGreaterThanOrEqual(firstUse + 3000 - 100);
    expect(started).toBeLessThanOrEqual(Date.now() + 3000);
    await new Promise((r) => setTimeout(r, Math.max(0, started - Date.now())));
    await cutOff(client);
    expect((await getClient(panel, 'delayed@e2e')).enable).toBe(false);
  });

  it('auto-renew: a depleted client whose expiry passes gets a new period, zeroed counters and works again', async () => {
    const expiry = Date.now() + 20_000; // after the first download and the cut-off, even on a loaded machine
    const c = await addClient(panel, 'renew@e2e', vmess.id, { totalGB: 128 * KB, expiryTime: expiry, reset: 1 });
    const client = await clientFor(c.uuid);
    expect((await curlSocksEventually(client.socksPort, target.url(`/bytes/${256 * KB}`), FIRST)).ok).toBe(true);
    await cutOff(client);
    await new Promise((r) => setTimeout(r, Math.max(0, expiry - Date.now())));
    // Renewed (re-enabled) within two poll intervals of the expiry, then it carries traffic again.
    await eventually(async () => (await getClient(panel, 'renew@e2e')).enable, TWO_TICKS, 100);
    const again = await curlSocksEventually(client.socksPort, target.url(`/bytes/${10 * KB}`), FIRST);
    expect(again.bytes).toBe(10 * KB);
    const full = (await panel.api('GET', `/panel/api/clients/get/${encodeURIComponent('renew@e2e')}`)).obj.client;
    expect(full.expiryTime).toBe(expiry + 86_400_000);
    expect(full.enable).toBe(true);
    expect((await traffic('renew@e2e')).down).toBeLessThan(128 * KB);
  });

  it('the core killed from outside comes back and counting continues without double counting', async () => {
    const c = await addClient(panel, 'crash@e2e', vmess.id);
    const client = await clientFor(c.uuid);
    expect((await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`))).bytes).toBe(MB);
    await eventually(async () => (await traffic('crash@e2e')).down >= MB, TWO_TICKS, 100);
    await new Promise((r) => setTimeout(r, INTERVAL + 200)); // one more tick: everything counted
    const before = await traffic('crash@e2e');
    const pid = panel.corePid()!;
    process.kill(pid, 'SIGKILL');
    await eventually(
      () => {
        const p = panel.corePid();
        return p !== null && p !== pid && pidAlive(p);
      },
      5000,
      100,
    );
    expect((await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`), 8000)).bytes).toBe(MB);
    await eventually(async () => (await traffic('crash@e2e')).down >= before.down + MB, TWO_TICKS, 100);
    await new Promise((r) => setTimeout(r, 2 * INTERVAL + 200)); // later ticks must not add the old core's values again
    const after = await traffic('crash@e2e');
    expect(after.down - before.down).toBeGreaterThanOrEqual(MB);
    expect(after.down - before.down).toBeLessThan(MB + 64 * KB);
  });

  it('with IP limits on, source IPs are recorded and the IP over the limit is written to ip-limit.log', async () => {
    expect((await panel.api('POST', '/panel/setting/update', { ipLimitEnable: true })).success).toBe(true);
    // The core restarts with its access log switched on.
    await eventually(() => existsSync(join(panel.dataDir, 'access.log')), 8000, 100);
    const c = await addClient(panel, 'iplimit@e2e', vmess.id, { limitIp: 1 });
    const a = await v2rayClient(bin!, { ...vmessOutbound(vmess.port, c.uuid), sendThrough: '127.0.0.1' });
    const b = await v2rayClient(bin!, { ...vmessOutbound(vmess.port, c.uuid), sendThrough: '127.0.0.2' });
    clients.push(a, b);
    expect((await curlSocksEventually(a.socksPort, target.url('/bytes/1000'), 8000)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, INTERVAL + 200));
    expect((await curlSocksEventually(b.socksPort, target.url('/bytes/1000'), 8000)).ok).toBe(true);
    const log = join(panel.dataDir, 'ip-limit.log');
    await eventually(
      () => existsSync(log) && readFileSync(log, 'utf8').includes('Email = iplimit@e2e || SRC = 127.0.0.2'),
      TWO_TICKS + 2000,
      100,
    );
    expect(readFileSync(log, 'utf8')).not.toContain('SRC = 127.0.0.1\n');
    const ips = (await panel.api('POST', `/panel/api/clients/ips/${encodeURIComponent('iplimit@e2e')}`))
      .obj as string[];
    expect(ips.join(' ')).toContain('127.0.0.1');
    expect(ips.join(' ')).toContain('127.0.0.2');
  });
});

describe.skipIf(!bin)('final flush on SIGTERM', () => {
  afterAll(async () => {
    await killAll();
  });

  it('counters written before exit include the last bytes moved (no tick ran in between)', async () => {
    const target = await startTarget();
    // A poll interval of an hour: no tick runs, only the flush at stop can write the counters.
    const panel = await startPanel({ coreBin: bin!, env: { PANEL_TRAFFIC_INTERVAL_MS: '3600000' } });
    let second: Panel | null = null;
    try {
      await eventually(() => panel.corePid(), 5000);
      const ib = await addInbound(panel, { protocol: 'vmess' });
      const c = await addClient(panel, 'flush@e2e', ib.id);
      const client = await v2rayClient(bin!, vmessOutbound(ib.port, c.uuid));
      expect((await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`))).bytes).toBe(MB);
      await client.stop();
      expect((await panel.api('GET', '/panel/api/clients/traffic/flush%40e2e')).obj.down).toBe(0);
      const corePid = panel.corePid()!;
      const exit = await panel.stop('SIGTERM', true);
      expect(exit.code).toBe(0);
      expect(pidAlive(corePid)).toBe(false);
      second = await startPanel({
        coreBin: bin!,
        dataDir: panel.dataDir,
        env: { PANEL_TRAFFIC_INTERVAL_MS: '3600000' },
      });
      const t = (await second.api('GET', '/panel/api/clients/traffic/flush%40e2e')).obj;
      expect(t.down).toBeGreaterThanOrEqual(MB);
      expect(t.down).toBeLessThan(MB + 64 * KB);
      const inbound = (await second.api('GET', `/panel/api/inbounds/get/${ib.id}`)).obj;
      expect(inbound.down).toBeGreaterThanOrEqual(MB);
    } finally {
      await second?.stop();
      await target.close();
      rmSync(panel.dataDir, { recursive: true, force: true });
    }
  });
});
