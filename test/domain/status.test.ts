import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../domain/shared/clock.js';
import { RecordingEvents } from '../../domain/shared/events.js';
import { aggregate, Ring, RingSet } from '../../domain/status/rings.js';
import { HISTORY_WINDOW_S, type HistoryMetric } from '../../domain/status/model.js';
import { coreMetricParams, cpuHistoryParams, historyParams } from '../../domain/status/input.js';
import { describeZodError } from '../../domain/shared/zod-error.js';
import type { z } from 'zod';
import { StatusService, PERSIST_EVERY_MS } from '../../domain/status/service.js';
import { dialAddress, metricsListenFrom, parseCoreVars } from '../../domain/status/core-metrics.js';
import { FakeCore } from '../support/fake-core.js';
import { FakeCoreMetrics, FakeHost, hostReading, MemoryHistoryFile } from '../support/fake-host.js';

/** A time divisible by every bucket size (300 s), so bucket starts are easy to read. */
const T0 = 1_800_000_000;

describe('Ring', () => {
  it('keeps the newest samples, oldest first, once it wraps', () => {
    const r = new Ring(3);
    for (let i = 1; i <= 5; i++) r.push(i, i * 10);
    const seen: number[][] = [];
    r.forEach((t, v) => seen.push([t, v]));
    expect(seen).toEqual([
      [3, 30],
      [4, 40],
      [5, 50],
    ]);
    expect(r.size).toBe(3);
    expect(r.last()).toEqual({ t: 5, v: 50 });
  });

  it('ignores non-finite values', () => {
    const r = new Ring(3);
    r.push(1, NaN);
    r.push(2, Infinity);
    expect(r.size).toBe(0);
  });
});

describe('bucket aggregation', () => {
  const series = (from: number, to: number, step = 2, v: (t: number) => number = (t) => t - from) => {
    const r = new Ring();
    for (let t = from; t <= to; t += step) r.push(t, v(t));
    return r;
  };

  it('2 s buckets return every sample as is', () => {
    const r = series(T0, T0 + 10);
    expect(aggregate(r, 2, T0 + 10)).toEqual([0, 2, 4, 6, 8, 10].map((d) => ({ t: T0 + d, v: d })));
  });

  it('aligns buckets to absolute multiples and averages the samples inside', () => {
    const r = series(T0, T0 + 58); // 30 samples: 0, 2, … 58
    expect(aggregate(r, 30, T0 + 60)).toEqual([
      { t: T0, v: 14 }, // mean of 0..28
      { t: T0 + 30, v: 44 }, // mean of 30..58
    ]);
    // A series that starts mid-bucket still lands on the absolute boundary.
    const mid = series(T0 + 20, T0 + 40, 2, () => 1);
    expect(aggregate(mid, 30, T0 + 60).map((s) => s.t)).toEqual([T0, T0 + 30]);
  });

  it('puts a sample on the boundary into the bucket it starts', () => {
    const r = new Ring();
    r.push(T0 + 59, 1);
    r.push(T0 + 60, 3);
    expect(aggregate(r, 60, T0 + 100)).toEqual([
      { t: T0, v: 1 },
      { t: T0 + 60, v: 3 },
    ]);
  });

  it('leaves gaps out instead of filling them', () => {
    const r = new Ring();
    r.push(T0, 5);
    r.push(T0 + 2, 7);
    r.push(T0 + 600, 9); // the panel was down for ten minutes
    expect(aggregate(r, 60, T0 + 700)).toEqual([
      { t: T0, v: 6 },
      { t: T0 + 600, v: 9 },
    ]);
    expect(aggregate(r, 300, T0 + 700)).toEqual([
      { t: T0, v: 6 },
      { t: T0 + 600, v: 9 },
    ]);
  });

  it('covers only the last 6 hours', () => {
    const now = T0 + 10 * 3600;
    const r = new Ring();
    r.push(now - HISTORY_WINDOW_S, 1); // exactly 6 h old: out
    r.push(now - HISTORY_WINDOW_S + 2, 2); // just inside
    r.push(now, 3);
    expect(aggregate(r, 2, now)).toEqual([
      { t: now - HISTORY_WINDOW_S + 2, v: 2 },
      { t: now, v: 3 },
    ]);
  });

  it('holds the full 6-hour window at one sample every 2 s', () => {
    const now = T0 + HISTORY_WINDOW_S;
    const r = series(T0 + 2, now);
    expect(r.size).toBe(HISTORY_WINDOW_S / 2);
    expect(aggregate(r, 2, now)).toHaveLength(HISTORY_WINDOW_S / 2);
    // 72 full 5-minute buckets plus the one just opened at `now`.
    expect(aggregate(r, 300, now)).toHaveLength(HISTORY_WINDOW_S / 300 + 1);
  });

  it('allows exactly the spec bucket sizes', () => {
    for (const b of ['2', '30', '60', '120', '180', '300'])
      expect(cpuHistoryParams.parse({ bucket: b })).toEqual({ bucket: Number(b) });
    for (const b of ['0', '1', '5', '600', '-2', '2.5', 'abc', '', '30s']) {
      const r = cpuHistoryParams.safeParse({ bucket: b });
      expect(r.success ? 'accepted' : describeZodError(r.error)).toMatch(
        /^bucket: must be one of 2, 30, 60, 120, 180, 300/,
      );
    }
  });
});

function setup(opts: { file?: MemoryHistoryFile; clock?: ManualClock; config?: unknown } = {}) {
  const clock = opts.clock ?? new ManualClock(T0 * 1000);
  const host = new FakeHost();
  const core = new FakeCore();
  const events = new RecordingEvents();
  const probe = new FakeCoreMetrics();
  const file = opts.file ?? new MemoryHistoryFile();
  const online = { n: 0 };
  const cfg = { value: opts.config ?? null };
  const status = new StatusService({
    host,
    coreMetrics: probe,
    historyFile: file,
    core,
    clock,
    events,
    panelVersion: '1.2.3',
    onlineCount: async () => online.n,
    coreConfig: async () => cfg.value,
  });
  return { clock, host, core, events, probe, file, online, cfg, status };
}

describe('status sampler', () => {
  it('turns two readings into CPU percent and network bytes per second', async () => {
    const s = setup();
    s.host.reading = hostReading({
      cpu: { idle: 900, total: 1000 },
      mem: { current: 2 * 2 ** 30, total: 8 * 2 ** 30 },
      net: { sent: 1_000_000, recv: 5_000_000 },
      tcpCount: 42,
      udpCount: 7,
      uptime: 1000,
      load: { load1: 1.5, load5: 1, load15: 0.5 },
    });
    const first = await s.status.tick();
    expect(first.cpu).toBe(10); // first reading: the average since boot
    expect(first.netIO).toEqual({ up: 0, down: 0 });
    s.clock.advance(2000);
    s.host.reading.cpu = { idle: 900 + 150, total: 1000 + 200 }; // 50 of 200 busy
    s.host.reading.net = { sent: 1_000_000 + 4000, recv: 5_000_000 + 10_000 };
    const snap = await s.status.tick();
    expect(snap).toEqual({
      cpu: 25,
      mem: { current: 2 * 2 ** 30, total: 8 * 2 ** 30 },
      swap: { current: 0, total: 0 },
      disk: { current: 0, total: 0 },
      netIO: { up: 2000, down: 5000 },
      core: { state: 'running', version: '1.8.24' },
      tcpCount: 42,
      load: { load1: 1.5, load5: 1, load15: 0.5 },
      panelVersion: 'v1.2.3',
      udpCount: 7,
      netTraffic: { sent: 1_004_000, recv: 5_010_000 },
      uptime: 1000,
      panelUptime: 2,
    });
    expect(s.events.of('status.sampled')).toHaveLength(2);
    expect(s.events.of('status.sampled')[1]).toEqual(snap);
  });

  it('counts a network counter that went backwards as no traffic', async () => {
    const s = setup();
    s.host.reading.net = { sent: 10_000, recv: 10_000 };
    await s.status.tick();
    s.clock.advance(2000);
    s.host.reading.net = { sent: 100, recv: 100 };
    expect((await s.status.tick()).netIO).toEqual({ up: 0, down: 0 });
  });

  it('feeds every history metric, mem as a percent, online from the clients', async () => {
    const s = setup();
    s.host.reading = hostReading({
      cpu: { idle: 50, total: 100 },
      mem: { current: 1, total: 4 },
      load: { load1: 3, load5: 2, load15: 1 },
    });
    s.online.n = 7;
    await s.status.tick();
    const at = (m: HistoryMetric) => s.status.history(m, 2);
    expect(at('cpu')).toEqual([{ t: T0, v: 50 }]);
    expect(at('mem')).toEqual([{ t: T0, v: 25 }]);
    expect(at('online')).toEqual([{ t: T0, v: 7 }]);
    expect(at('load1')).toEqual([{ t: T0, v: 3 }]);
    expect(at('load5')).toEqual([{ t: T0, v: 2 }]);
    expect(at('load15')).toEqual([{ t: T0, v: 1 }]);
    expect(at('netUp')).toEqual([{ t: T0, v: 0 }]);
    expect(at('netDown')).toEqual([{ t: T0, v: 0 }]);
  });

  it('serves requests from the cache: reading status or history never reads the host', async () => {
    const s = setup();
    await s.status.tick();
    const reads = s.host.reads;
    s.status.snapshot();
    s.status.history('cpu', 60);
    expect(s.host.reads).toBe(reads);
  });

  it('keeps the online metric at 0 when the clients use case fails', async () => {
    const s = setup();
    s.online.n = 3;
    const status = new StatusService({
      host: s.host,
      coreMetrics: s.probe,
      historyFile: null,
      core: s.core,
      clock: s.clock,
      events: s.events,
      panelVersion: 'v9',
      onlineCount: async () => {
        throw new Error('no clients yet');
      },
      coreConfig: async () => null,
    });
    const snap = await status.tick();
    expect(snap.panelVersion).toBe('v9');
    expect(status.history('online', 2)).toEqual([{ t: T0, v: 0 }]);
  });

  it('refuses unknown metrics and buckets with a clear message', async () => {
    const s = setup();
    const refusal = (schema: z.ZodType, v: unknown) => {
      const r = schema.safeParse(v);
      return r.success ? 'accepted' : describeZodError(r.error);
    };
    expect(refusal(historyParams, { metric: 'disk', bucket: '30' })).toBe(
      'metric: must be one of cpu, mem, netUp, netDown, online, load1, load5, load15, got "disk"',
    );
    expect(refusal(historyParams, { metric: 'cpu', bucket: '45' })).toBe(
      'bucket: must be one of 2, 30, 60, 120, 180, 300 (seconds), got "45"',
    );
    expect(refusal(coreMetricParams, { metric: 'cpu', bucket: '30' })).toMatch(
      /metric: must be one of coreAlloc, coreSys/,
    );
    expect(() => s.status.observatoryHistory('proxy', 30)).toThrow('tag: no observatory results for outbound "proxy"');
  });

  it('reports the core state live, between samples', async () => {
    const s = setup();
    await s.status.tick();
    s.core.current = { ...s.core.current, state: 'stopped' };
    expect(s.status.snapshot().core).toEqual({ state: 'stopped', version: '1.8.24' });
  });
});

describe('history persistence', () => {
  it('saves at most once a minute', async () => {
    const s = setup();
    await s.status.tick();
    expect(s.file.saves).toBe(1);
    for (let i = 0; i < 29; i++) {
      s.clock.advance(2000);
      await s.status.tick();
    }
    expect(s.file.saves).toBe(1); // 58 s later
    s.clock.advance(2000);
    await s.status.tick();
    expect(s.file.saves).toBe(2); // 60 s
    s.clock.advance(PERSIST_EVERY_MS - 2000);
    await s.status.tick();
    expect(s.file.saves).toBe(2);
  });

  it('survives a restart: the history is loaded, the downtime stays a gap, and new samples follow', async () => {
    const file = new MemoryHistoryFile();
    const a = setup({ file });
    for (let i = 0; i < 30; i++) {
      a.host.reading.load = { load1: 1, load5: 1, load15: 1 };
      await a.status.tick();
      a.clock.advance(2000);
    }
    await a.status.stop(); // not started: nothing more to save
    await a.status.persist();
    const saved = file.saves;
    expect(saved).toBeGreaterThanOrEqual(1);

    // The panel comes back 10 minutes later.
    const clock = new ManualClock(a.clock.now() + 10 * 60_000);
    const b = setup({ file, clock });
    expect(await b.status.load()).toBe(30 * 8);
    b.host.reading.load = { load1: 4, load5: 4, load15: 4 };
    await b.status.tick();
    const h = b.status.history('load1', 60);
    expect(h).toEqual([
      { t: T0, v: 1 },
      { t: Math.floor(clock.now() / 1000 / 60) * 60, v: 4 },
    ]);
    expect(b.status.history('load1', 2)).toHaveLength(31);
    expect(file.saves).toBe(saved); // a minute has not passed since the file was loaded
  });

  it('drops persisted samples older than the window and ignores a corrupt file', async () => {
    const file = new MemoryHistoryFile();
    file.data = {
      version: 1,
      savedAt: T0,
      series: { 'host.cpu': { t: [T0, 2, 2], v: [10, 20, 30] }, 'host.mem': 'junk' },
    };
    const clock = new ManualClock((T0 + HISTORY_WINDOW_S + 2) * 1000); // T0 and T0+2 are now out of the window
    const s = setup({ file, clock });
    expect(await s.status.load()).toBe(1);
    expect(s.status.history('cpu', 2)).toEqual([{ t: T0 + 4, v: 30 }]);
    const bad = setup({ file: Object.assign(new MemoryHistoryFile(), { data: { version: 7 } }) });
    expect(await bad.status.load()).toBe(0);
  });

  it('round-trips every ring set through the dump format', () => {
    const a = new RingSet();
    a.push('x', T0, 1.234);
    a.push('x', T0 + 2, 2);
    const b = new RingSet();
    b.restore(a.dump('p.'), T0 + 10, 'p.');
    expect(b.aggregate('x', 2, T0 + 10)).toEqual([
      { t: T0, v: 1.23 },
      { t: T0 + 2, v: 2 },
    ]);
  });
});

describe('core metrics', () => {
  const vars = (numGC: number, obs: Record<string, unknown> = {}) => {
    const PauseNs = new Array(256).fill(0);
    PauseNs[(numGC + 255) % 256] = 777;
    return {
      memstats: { Alloc: 1000, HeapAlloc: 1000, Sys: 5000, HeapObjects: 42, NumGC: numGC, PauseNs },
      observatory: obs,
      stats: {},
    };
  };

  it('finds the metrics listener in a core config', () => {
    expect(metricsListenFrom({ metrics: { tag: 'm', listen: '127.0.0.1:11111' } })).toBe('127.0.0.1:11111');
    expect(metricsListenFrom({ metrics: { listen: ':11111' } })).toBe('127.0.0.1:11111');
    expect(
      metricsListenFrom({
        metrics: { tag: 'metrics_out' },
        inbounds: [{ tag: 'metrics_in', listen: '127.0.0.1', port: 11112, protocol: 'dokodemo-door' }],
        routing: { rules: [{ inboundTag: ['metrics_in'], outboundTag: 'metrics_out' }] },
      }),
    ).toBe('127.0.0.1:11112');
    expect(metricsListenFrom({ log: {} })).toBeNull();
    expect(metricsListenFrom(null)).toBeNull();
    expect(metricsListenFrom({ metrics: { tag: 'orphan' } })).toBeNull();
    expect(dialAddress('[::]:9')).toBe('[::1]:9');
    expect(dialAddress('0.0.0.0:9')).toBe('127.0.0.1:9');
    expect(dialAddress('nonsense')).toBeNull();
  });

  it('parses memstats (the last GC pause from the circular buffer) and the observatory', () => {
    const p = parseCoreVars(
      vars(300, { a: { alive: true, delay: 120, outbound_tag: 'proxy', last_seen_time: 5, last_try_time: 6 } }),
      T0,
    )!;
    expect(p.values).toEqual({ coreAlloc: 1000, coreSys: 5000, coreHeapObjects: 42, coreNumGC: 300, corePauseNs: 777 });
    expect(p.observatory).toEqual([
      { tag: 'proxy', alive: true, delay: 120, lastSeenTime: 5, lastTryTime: 6, updatedAt: T0 },
    ]);
    expect(parseCoreVars({ nothing: 1 }, T0)).toBeNull();
  });

  it('is an empty state, not an error, when the config has no metrics section', async () => {
    const s = setup();
    await s.status.tick();
    expect(s.status.coreMetricsState()).toEqual({
      enabled: false,
      listen: '',
      reason: 'metrics are not configured in the core config',
      updatedAt: 0,
      values: null,
    });
    expect(s.status.observatory()).toEqual([]);
    expect(s.status.coreMetricsHistory('coreAlloc', 2)).toEqual([]);
    expect(s.probe.addresses).toEqual([]);
  });

  it('reads the endpoint each sample, keeps rings per metric and per outbound, and drops vanished outbounds', async () => {
    const s = setup({ config: { metrics: { tag: 'Metrics', listen: '127.0.0.1:11111' } } });
    s.probe.answer = {
      ok: true,
      vars: vars(1, { proxy: { alive: true, delay: 100 }, backup: { alive: false, delay: 0 } }),
    };
    await s.status.tick();
    s.clock.advance(2000);
    s.probe.answer = { ok: true, vars: vars(2, { proxy: { alive: true, delay: 300 } }) };
    await s.status.tick();
    expect(s.probe.addresses).toEqual(['127.0.0.1:11111', '127.0.0.1:11111']);
    const state = s.status.coreMetricsState();
    expect(state).toMatchObject({ enabled: true, listen: '127.0.0.1:11111', reason: '', updatedAt: T0 + 2 });
    expect(state.values).toEqual({
      coreAlloc: 1000,
      coreSys: 5000,
      coreHeapObjects: 42,
      coreNumGC: 2,
      corePauseNs: 777,
    });
    expect(s.status.coreMetricsHistory('coreNumGC', 2)).toEqual([
      { t: T0, v: 1 },
      { t: T0 + 2, v: 2 },
    ]);
    expect(s.status.coreMetricsHistory('coreNumGC', 30)).toEqual([{ t: T0, v: 1.5 }]);
    expect(s.status.observatory().map((e) => e.tag)).toEqual(['proxy']);
    expect(s.status.observatoryHistory('proxy', 30)).toEqual([{ t: T0, v: 200 }]);
    expect(() => s.status.observatoryHistory('backup', 30)).toThrow(/backup/);
  });

  it('never probes a stopped core, and keeps the last values with the reason when the endpoint fails', async () => {
    const s = setup({ config: { metrics: { listen: '127.0.0.1:11111' } } });
    s.probe.answer = { ok: true, vars: vars(1) };
    await s.status.tick();
    s.probe.answer = { ok: false, reason: 'metrics endpoint unreachable: connect ECONNREFUSED' };
    s.clock.advance(2000);
    await s.status.tick();
    expect(s.status.coreMetricsState()).toMatchObject({
      enabled: false,
      reason: 'metrics endpoint unreachable: connect ECONNREFUSED',
      updatedAt: T0,
    });
    expect(s.status.coreMetricsState().values?.coreNumGC).toBe(1);
    s.core.current = { ...s.core.current, state: 'stopped' };
    const before = s.probe.addresses.length;
    s.clock.advance(2000);
    await s.status.tick();
    expect(s.probe.addresses.length).toBe(before);
    expect(s.status.coreMetricsState().reason).toBe('core is not running');
  });
});
