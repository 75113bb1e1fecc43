import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { hostReading } from '../support/fake-host.js';

describe.each(testDatabases())('server status API on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let bearer: string;
  const t0 = () => Math.floor(t.clock.now() / 1000);

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    const tok = await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'status-test' }, s);
    bearer = tok.json.obj.token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('needs a session or a Bearer token', async () => {
    const anon = await call(t, 'GET', '/panel/api/server/status');
    expect(anon.status).toBe(404);
    const viaToken = await call(t, 'GET', '/panel/api/server/status', undefined, { bearer });
    expect(viaToken.json.success).toBe(true);
  });

  it('answers an empty snapshot before the first sample, with the v-prefixed panel version', async () => {
    const r = await call(t, 'GET', '/panel/api/server/status', undefined, s);
    expect(r.json).toEqual({
      success: true,
      msg: '',
      obj: {
        cpu: 0,
        mem: { current: 0, total: 0 },
        swap: { current: 0, total: 0 },
        disk: { current: 0, total: 0 },
        netIO: { up: 0, down: 0 },
        core: { state: 'running', version: '1.8.24' },
        tcpCount: 0,
        load: { load1: 0, load5: 0, load15: 0 },
        panelVersion: 'v0.1.0',
        udpCount: 0,
        netTraffic: { sent: 0, recv: 0 },
        uptime: 0,
        panelUptime: 0,
      },
    });
  });

  it('serves the sampled snapshot from the cache (a request never reads the host)', async () => {
    t.host.reading = hostReading({
      cpu: { idle: 600, total: 1000 },
      mem: { current: 1_000, total: 4_000 },
      swap: { current: 10, total: 100 },
      disk: { current: 5_000, total: 20_000 },
      net: { sent: 100, recv: 200 },
      tcpCount: 9,
      udpCount: 4,
      uptime: 86_400,
      load: { load1: 0.5, load5: 0.25, load15: 0.125 },
    });
    await t.services.status.tick();
    t.clock.advance(2000);
    t.host.reading.cpu = { idle: 700, total: 1200 };
    t.host.reading.net = { sent: 100 + 2000, recv: 200 + 6000 };
    await t.services.status.tick();
    const reads = t.host.reads;
    const r = await call(t, 'GET', '/panel/api/server/status', undefined, s);
    expect(t.host.reads).toBe(reads);
    expect(r.json.obj).toEqual({
      cpu: 50,
      mem: { current: 1_000, total: 4_000 },
      swap: { current: 10, total: 100 },
      disk: { current: 5_000, total: 20_000 },
      netIO: { up: 1000, down: 3000 },
      core: { state: 'running', version: '1.8.24' },
      tcpCount: 9,
      load: { load1: 0.5, load5: 0.25, load15: 0.125 },
      panelVersion: 'v0.1.0',
      udpCount: 4,
      netTraffic: { sent: 2100, recv: 6200 },
      uptime: 86_400,
      panelUptime: expect.any(Number),
    });
  });

  it('answers history per metric and bucket, with cpuHistory as the legacy alias', async () => {
    const bucket30 = Math.floor((t0() - 2) / 30) * 30;
    const cpu = await call(t, 'GET', '/panel/api/server/history/cpu/2', undefined, s);
    expect(cpu.json.obj).toEqual([
      { t: t0() - 2, v: 40 },
      { t: t0(), v: 50 },
    ]);
    const legacy = await call(t, 'GET', '/panel/api/server/cpuHistory/2', undefined, s);
    expect(legacy.json.obj).toEqual(cpu.json.obj);
    const mem = await call(t, 'GET', '/panel/api/server/history/mem/300', undefined, s);
    expect(mem.json.obj).toEqual([{ t: Math.floor((t0() - 2) / 300) * 300, v: 25 }]);
    const down = await call(t, 'GET', '/panel/api/server/history/netDown/30', undefined, s);
    expect(down.json.obj[0].t).toBe(bucket30);
    for (const m of ['netUp', 'online', 'load1', 'load5', 'load15']) {
      const r = await call(t, 'GET', `/panel/api/server/history/${m}/60`, undefined, s);
      expect(r.json.success, m).toBe(true);
      expect(Array.isArray(r.json.obj), m).toBe(true);
    }
  });

  it('refuses unknown metrics and buckets with a clear message', async () => {
    const badMetric = await call(t, 'GET', '/panel/api/server/history/disk/30', undefined, s);
    expect(badMetric.status).toBe(200);
    expect(badMetric.json).toEqual({
      success: false,
      msg: 'metric: must be one of cpu, mem, netUp, netDown, online, load1, load5, load15, got "disk"',
      obj: null,
    });
    const badBucket = await call(t, 'GET', '/panel/api/server/history/cpu/45', undefined, s);
    expect(badBucket.json).toEqual({
      success: false,
      msg: 'bucket: must be one of 2, 30, 60, 120, 180, 300 (seconds), got "45"',
      obj: null,
    });
    const legacyBad = await call(t, 'GET', '/panel/api/server/cpuHistory/abc', undefined, s);
    expect(legacyBad.json.success).toBe(false);
    const coreBad = await call(t, 'GET', '/panel/api/server/coreMetricsHistory/cpu/30', undefined, s);
    expect(coreBad.json.msg).toMatch(
      /^metric: must be one of coreAlloc, coreSys, coreHeapObjects, coreNumGC, corePauseNs/,
    );
  });

  it('answers an empty core metrics state when the core config has no metrics section', async () => {
    const st = await call(t, 'GET', '/panel/api/server/coreMetricsState', undefined, s);
    expect(st.json.obj).toEqual({
      enabled: false,
      listen: '',
      reason: 'metrics are not configured in the core config',
      updatedAt: 0,
      values: null,
    });
    expect((await call(t, 'GET', '/panel/api/server/coreObservatory', undefined, s)).json.obj).toEqual([]);
    expect((await call(t, 'GET', '/panel/api/server/coreMetricsHistory/coreAlloc/30', undefined, s)).json.obj).toEqual(
      [],
    );
  });

  it('reads the core metrics once the core template has a metrics section', async () => {
    const current = await call(t, 'POST', '/panel/core', undefined, s);
    const template = JSON.parse(current.json.obj.coreSetting);
    template.metrics = { tag: 'Metrics', listen: '127.0.0.1:11111' };
    const saved = await call(
      t,
      'POST',
      '/panel/core/update',
      new URLSearchParams({ coreSetting: JSON.stringify(template) }),
      s,
    );
    expect(saved.json.success).toBe(true);

    const PauseNs = new Array(256).fill(0);
    PauseNs[0] = 4200;
    t.coreMetrics.answer = {
      ok: true,
      vars: {
        memstats: { Alloc: 3_000_000, Sys: 9_000_000, HeapObjects: 1234, NumGC: 1, PauseNs },
        observatory: {
          proxy: { alive: true, delay: 85, outbound_tag: 'proxy', last_seen_time: 100, last_try_time: 101 },
        },
      },
    };
    t.clock.advance(2000);
    await t.services.status.tick();
    expect(t.coreMetrics.addresses.at(-1)).toBe('127.0.0.1:11111');

    const st = await call(t, 'GET', '/panel/api/server/coreMetricsState', undefined, s);
    expect(st.json.obj).toEqual({
      enabled: true,
      listen: '127.0.0.1:11111',
      reason: '',
      updatedAt: t0(),
      values: { coreAlloc: 3_000_000, coreSys: 9_000_000, coreHeapObjects: 1234, coreNumGC: 1, corePauseNs: 4200 },
    });
    const h = await call(t, 'GET', '/panel/api/server/coreMetricsHistory/coreHeapObjects/2', undefined, s);
    expect(h.json.obj).toEqual([{ t: t0(), v: 1234 }]);
    const obs = await call(t, 'GET', '/panel/api/server/coreObservatory', undefined, s);
    expect(obs.json.obj).toEqual([
      { tag: 'proxy', alive: true, delay: 85, lastSeenTime: 100, lastTryTime: 101, updatedAt: t0() },
    ]);
    const oh = await call(t, 'GET', '/panel/api/server/coreObservatoryHistory/proxy/60', undefined, s);
    expect(oh.json.obj).toEqual([{ t: Math.floor(t0() / 60) * 60, v: 85 }]);
    const unknown = await call(t, 'GET', '/panel/api/server/coreObservatoryHistory/nope/60', undefined, s);
    expect(unknown.json).toEqual({ success: false, msg: 'tag: no observatory results for outbound "nope"', obj: null });

    // The core goes down: the endpoint is not called, the state says why, nothing fails.
    t.core.current = { ...t.core.current, state: 'stopped' };
    const calls = t.coreMetrics.addresses.length;
    t.clock.advance(2000);
    await t.services.status.tick();
    expect(t.coreMetrics.addresses.length).toBe(calls);
    const down = await call(t, 'GET', '/panel/api/server/coreMetricsState', undefined, s);
    expect(down.json.obj).toMatchObject({ enabled: false, reason: 'core is not running' });
    t.core.current = { ...t.core.current, state: 'running' };
  });

  describe('GET /ws refusals (in-process; the upgrade itself is in test/e2e/websocket.test.ts)', () => {
    const ws = (headers: Record<string, string>) =>
      t.app.request('/ws', { headers: { upgrade: 'websocket', connection: 'Upgrade', host: 'localhost', ...headers } });

    it('refuses a request without a session (404, like every unauthenticated panel request)', async () => {
      expect((await ws({ origin: 'http://localhost' })).status).toBe(404);
    });

    it('refuses a Bearer token alone', async () => {
      const r = await ws({ origin: 'http://localhost', authorization: `Bearer ${bearer}` });
      expect(r.status).toBe(404);
    });

    it('refuses a foreign Origin even with a session', async () => {
      const r = await ws({ origin: 'http://evil.example', cookie: s.cookie });
      expect(r.status).toBe(403);
      expect((await r.json()).msg).toBe('WebSocket refused: Origin http://evil.example is not this panel');
    });

    it('answers 426 where the runtime has no WebSocket support', async () => {
      const r = await ws({ origin: 'http://localhost', cookie: s.cookie });
      expect(r.status).toBe(426);
    });
  });
});
