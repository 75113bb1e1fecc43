// The status use case: one background sampler every 2 seconds reads the host (and the core's metrics endpoint
// when configured), keeps the latest snapshot and the history rings, emits `status.sampled`, and persists the
// rings at most once a minute. Requests only read what the sampler cached.
import type { CoreControl } from '../ports/core.js';
import type { CoreMetricsProbe, HistoryFile, HostMetrics, HostReading } from '../ports/host.js';
import type { Clock } from '../shared/clock.js';
import type { EventSink } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import {
  CORE_METRICS,
  emptySnapshot,
  SAMPLE_INTERVAL_MS,
  vPrefixed,
  type CoreMetric,
  type HistoryMetric,
  type HistorySample,
  type StatusSnapshot,
} from './model.js';
import { isHistoryDump, RingSet, type HistoryDump } from './rings.js';
import { metricsListenFrom, parseCoreVars, type CoreMetricsState, type ObservatoryEntry } from './core-metrics.js';

export const PERSIST_EVERY_MS = 60_000;

export interface StatusDeps {
  host: HostMetrics;
  coreMetrics: CoreMetricsProbe;
  /** null: history lives in memory only. */
  historyFile: HistoryFile | null;
  core: CoreControl;
  clock: Clock;
  events: EventSink;
  panelVersion: string;
  /** How many clients are online now (the clients use case); 0 when unknown. */
  onlineCount(): Promise<number>;
  /** The config the core runs (for its `metrics` section); null when unknown. */
  coreConfig(): Promise<unknown | null>;
  warn?(msg: string, fields?: Record<string, unknown>): void;
}

const pct = (part: number, total: number): number => (total > 0 ? Math.round((part / total) * 10000) / 100 : 0);

export class StatusService {
  private snap: StatusSnapshot;
  private prev: { at: number; reading: HostReading } | null = null;
  /** Host history: cpu, mem, netUp, netDown, online, load1, load5, load15. */
  readonly hostRings = new RingSet();
  /** Core history: coreAlloc, coreSys, coreHeapObjects, coreNumGC, corePauseNs. */
  readonly coreRings = new RingSet();
  /** Observatory delay history per outbound tag. */
  readonly obsRings = new RingSet();
  private coreState: CoreMetricsState = {
    enabled: false,
    listen: '',
    reason: 'not sampled yet',
    updatedAt: 0,
    values: null,
  };
  private obs: ObservatoryEntry[] = [];
  private lastSavedAt: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private inFlight: Promise<unknown> | null = null;
  private loaded = false;
  /** When this service (the panel process) started, for panelUptime. */
  private readonly startedAt: number;

  constructor(private deps: StatusDeps) {
    this.snap = emptySnapshot(deps.panelVersion);
    this.startedAt = deps.clock.now();
  }

  private nowS(): number {
    return Math.floor(this.deps.clock.now() / 1000);
  }

  /** Loads the persisted rings (once). Missing or malformed files leave the rings empty. */
  async load(): Promise<number> {
    if (this.loaded || !this.deps.historyFile) return 0;
    this.loaded = true;
    let data: unknown = null;
    try {
      data = await this.deps.historyFile.load();
    } catch (err) {
      this.deps.warn?.('history file unreadable; starting with empty history', { error: String(err) });
    }
    if (!isHistoryDump(data)) return 0;
    const now = this.nowS();
    const n =
      this.hostRings.restore(data.series, now, 'host.') +
      this.coreRings.restore(data.series, now, 'core.') +
      this.obsRings.restore(data.series, now, 'obs.');
    this.lastSavedAt = this.deps.clock.now();
    return n;
  }

  /** One sample: host reading, core metrics, rings, event, and a save when a minute has passed. */
  async tick(): Promise<StatusSnapshot> {
    const p = this.sample();
    this.inFlight = p;
    try {
      return await p;
    } finally {
      if (this.inFlight === p) this.inFlight = null;
    }
  }

  private async sample(): Promise<StatusSnapshot> {
    const { deps } = this;
    const at = deps.clock.now();
    const t = Math.floor(at / 1000);
    const r = await deps.host.read();
    const prev = this.prev;
    let cpu = 0;
    if (r.cpu) {
      const base = prev?.reading.cpu;
      const dTotal = base ? r.cpu.total - base.total : r.cpu.total;
      const dIdle = base ? r.cpu.idle - base.idle : r.cpu.idle;
      cpu = dTotal > 0 ? Math.min(100, Math.max(0, pct(dTotal - dIdle, dTotal))) : prev ? this.snap.cpu : 0;
    }
    let up = 0;
    let down = 0;
    if (prev && at > prev.at) {
      const secs = (at - prev.at) / 1000;
      // A counter that went backwards (interface reset) counts as no traffic for this interval.
      up = Math.max(0, Math.round((r.net.sent - prev.reading.net.sent) / secs));
      down = Math.max(0, Math.round((r.net.recv - prev.reading.net.recv) / secs));
    }
    this.prev = { at, reading: r };
    const core = deps.core.status();
    this.snap = {
      cpu,
      mem: { ...r.mem },
      swap: { ...r.swap },
      disk: { ...r.disk },
      netIO: { up, down },
      core: { state: core.state, version: core.version },
      tcpCount: r.tcpCount,
      load: { ...r.load },
      panelVersion: vPrefixed(deps.panelVersion),
      udpCount: r.udpCount,
      netTraffic: { ...r.net },
      uptime: r.uptime,
      panelUptime: Math.floor((at - this.startedAt) / 1000),
    };
    let online = 0;
    try {
      online = await deps.onlineCount();
    } catch {
      online = 0;
    }
    const h = this.hostRings;
    h.push('cpu', t, cpu);
    h.push('mem', t, pct(r.mem.current, r.mem.total));
    h.push('netUp', t, up);
    h.push('netDown', t, down);
    h.push('online', t, online);
    h.push('load1', t, r.load.load1);
    h.push('load5', t, r.load.load5);
    h.push('load15', t, r.load.load15);

    await this.sampleCore(t, core.state);
    deps.events.emit('status.sampled', this.snapshot());
    if (this.deps.historyFile && (this.lastSavedAt === null || at - this.lastSavedAt >= PERSIST_EVERY_MS)) {
      await this.persist();
    }
    return this.snapshot();
  }

  private async sampleCore(t: number, coreState: string): Promise<void> {
    let listen: string | null = null;
    try {
      listen = metricsListenFrom(await this.deps.coreConfig());
    } catch {
      listen = null;
    }
    const keep = { updatedAt: this.coreState.updatedAt, values: this.coreState.values };
    if (!listen) {
      this.coreState = {
        enabled: false,
        listen: '',
        reason: 'metrics are not configured in the core config',
        updatedAt: 0,
        values: null,
      };
      this.setObservatory([]);
      return;
    }
    if (coreState !== 'running') {
      this.coreState = { enabled: false, listen, reason: 'core is not running', ...keep };
      return;
    }
    const res = await this.deps.coreMetrics.fetchVars(listen);
    const parsed = res.ok ? parseCoreVars(res.vars, t) : null;
    if (!parsed) {
      this.coreState = {
        enabled: false,
        listen,
        reason: res.ok ? 'metrics endpoint answered without memstats' : res.reason,
        ...keep,
      };
      return;
    }
    for (const m of CORE_METRICS) this.coreRings.push(m, t, parsed.values[m]);
    this.coreState = { enabled: true, listen, reason: '', updatedAt: t, values: parsed.values };
    for (const e of parsed.observatory) this.obsRings.push(e.tag, t, e.delay);
    this.setObservatory(parsed.observatory);
  }

  private setObservatory(entries: ObservatoryEntry[]): void {
    const keep = new Set(entries.map((e) => e.tag));
    for (const tag of this.obsRings.names()) if (!keep.has(tag)) this.obsRings.drop(tag);
    this.obs = entries;
  }

  /** Writes the rings (the adapter's HistoryFile does the atomic write). Failures are logged, never thrown. */
  async persist(): Promise<void> {
    if (!this.deps.historyFile) return;
    this.lastSavedAt = this.deps.clock.now();
    const dump: HistoryDump = {
      version: 1,
      savedAt: this.nowS(),
      series: { ...this.hostRings.dump('host.'), ...this.coreRings.dump('core.'), ...this.obsRings.dump('obs.') },
    };
    try {
      await this.deps.historyFile.save(dump);
    } catch (err) {
      this.deps.warn?.('saving the metric history failed', { error: String(err) });
    }
  }

  /** The cached snapshot; the core part is the core's current state (an in-memory read, not a measurement). */
  snapshot(): StatusSnapshot {
    const core = this.deps.core.status();
    return { ...this.snap, core: { state: core.state, version: core.version } };
  }

  history(metric: HistoryMetric, bucket: number): HistorySample[] {
    return this.hostRings.aggregate(metric, bucket, this.nowS());
  }

  coreMetricsState(): CoreMetricsState {
    return { ...this.coreState, values: this.coreState.values ? { ...this.coreState.values } : null };
  }

  coreMetricsHistory(metric: CoreMetric, bucket: number): HistorySample[] {
    return this.coreRings.aggregate(metric, bucket, this.nowS());
  }

  observatory(): ObservatoryEntry[] {
    return this.obs.map((e) => ({ ...e }));
  }

  observatoryHistory(tag: string, bucket: number): HistorySample[] {
    if (!this.obsRings.has(tag)) {
      throw new DomainError(`tag: no observatory results for outbound "${tag}"`);
    }
    return this.obsRings.aggregate(tag, bucket, this.nowS());
  }

  /** Starts the background sampler: a tick now, then every 2 seconds (never overlapping). */
  start(): void {
    if (this.running) return;
    this.running = true;
    const loop = async () => {
      if (!this.running) return;
      const started = this.deps.clock.now();
      try {
        await this.tick();
      } catch (err) {
        this.deps.warn?.('status sample failed', { error: String(err) });
      }
      if (!this.running) return;
      const elapsed = this.deps.clock.now() - started;
      this.timer = setTimeout(loop, Math.max(100, SAMPLE_INTERVAL_MS - elapsed));
      (this.timer as { unref?: () => void }).unref?.();
    };
    void this.load()
      .catch(() => 0)
      .then(loop);
  }

  /** Stops the sampler, waits for a sample in flight, and saves the rings once more. */
  async stop(): Promise<void> {
    const wasRunning = this.running;
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.inFlight) await this.inFlight.catch(() => undefined);
    if (wasRunning) await this.persist();
  }
}

/** The host port when none is wired (tests, Workers): every reading is zero. */
