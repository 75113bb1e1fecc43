// Traffic accounting and enforcement use cases (DESIGN.md principles 2 and 4). `tick()` runs every few seconds
// (adapters/node/jobs.ts): it polls the core's counters without reset, stores the deltas against remembered
// baselines in one batched transaction, records client IPs from the access log, then runs the set-based
// enforcement pass and announces what changed. `flush()` stores the last deltas before a graceful stop.
import type { Store } from '../ports/store.js';
import type { CoreControl, CoreStat } from '../ports/core.js';
import type { AccessLogSource, EnforcementResult, IpLimitLog, OutboundTrafficRow } from '../ports/traffic-repo.js';
import type { Clock } from '../shared/clock.js';
import type { EventChannel } from '../shared/events.js';
import type { Settings } from '../settings/schema.js';
import { DomainError } from '../shared/errors.js';
import { CounterBook, type TrafficDeltas } from './accounting.js';
import { excessIps, ipLimitLine, IP_RETENTION_SEC, type AccessObservation } from './ip-limit.js';
import { ONLINE_WINDOW_MS } from './rules.js';

/** Tag meaning "every outbound" for resetOutboundsTraffic (what the reference panel's clients send). */
export const ALL_OUTBOUNDS_TAG = '-alltags-';

const PRUNE_EVERY_MS = 3_600_000;
/** A quota check over every client runs at least this often (and on the next tick after any client change). */
const FULL_SWEEP_EVERY_MS = 600_000;
/** Above this many moved clients one sweep over all clients is cheaper than looking each one up. */
const LIST_CHECK_MAX = 2000;

export interface TrafficServiceDeps {
  store: Store;
  core: CoreControl;
  clock: Clock;
  /** Emits the tick's events; when it can also subscribe, client changes made elsewhere trigger a full quota sweep. */
  events: EventChannel;
  settings: { effective(): Promise<Settings> };
  /** The core's access log (host agent); without it no client IPs are recorded. */
  accessLog?: AccessLogSource;
  /** Where lines for IPs over a client's limit go (host agent); without it nothing is written. */
  ipLimitLog?: IpLimitLog;
  /** Tag of the core's API inbound (ignored in accounting). */
  apiTag?: string;
  /** Reports background problems that do not fail the tick (IP log write, core restart). */
  warn?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Restarts the core on the current configuration: once after a tick that depleted clients while
   * `restartCoreOnClientDisable` is on. */
  restartCore?: () => Promise<void>;
  /** Emails online on remote nodes (the node puller), merged into onlines(). */
  remoteOnlines?: () => readonly string[];
}

export interface TickResult {
  deltas: TrafficDeltas;
  enforcement: EnforcementResult | null;
  /** Lines written to the IP-limit log. */
  ipLimitLines: number;
  coreRestarted: boolean;
  /** The tick depleted clients while `restartCoreOnClientDisable` is on. */
  restartWanted: boolean;
  /** Milliseconds spent polling+diffing, writing the deltas, and in the enforcement pass (diagnostics). */
  timings: { poll: number; write: number; enforce: number };
}

export class TrafficService {
  private book: CounterBook;
  private corePid: number | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private lastPrune = 0;
  private lastFullSweep = 0;
  private fullSweepDue = true;

  constructor(private deps: TrafficServiceDeps) {
    this.book = new CounterBook({ apiTag: deps.apiTag });
    // Quota can be crossed without traffic only by a change to the client (quota lowered, counters edited):
    // the next tick then checks every client, not only those whose counters moved.
    deps.events.on?.('clients.changed', (e) => {
      if (e.action !== 'depleted' && e.action !== 'renewed') this.fullSweepDue = true;
    });
  }

  /** One poll + store + IP record + enforcement pass. Runs are serialised with each other and with flush(). */
  async tick(): Promise<TickResult> {
    const result = await this.serial(() => this.runTick(true));
    // Outside the serial section: the core service flushes counters (which takes that section) before it restarts.
    if (result.restartWanted && this.deps.restartCore) {
      try {
        await this.deps.restartCore();
        result.coreRestarted = true;
      } catch (err) {
        this.deps.warn?.('core restart after client depletion failed', { error: String(err) });
      }
    }
    return result;
  }

  /** Stores the counters moved since the last poll (no enforcement): call before the core stops. */
  flush(): Promise<TrafficDeltas> {
    return this.serial(async () => (await this.account()).deltas);
  }

  /** Emails whose counters moved within the online window (20 s), as seen by this process, and online on nodes. */
  onlines(): string[] {
    const local = this.book.movedSince(this.deps.clock.now() - ONLINE_WINDOW_MS);
    const extra = this.deps.remoteOnlines?.() ?? [];
    return (extra.length ? [...new Set([...local, ...extra])] : local).sort();
  }

  /**
   * Client counters already stored elsewhere (a node pull: storage moved them with the node's baselines): the
   * quota check of the moved clients and the events a local tick gives, serialised with the ticks.
   */
  applied(clients: { email: string; up: number; down: number }[], atMs: number): Promise<EnforcementResult | null> {
    return this.serial(async () => {
      const now = this.deps.clock.now();
      this.deps.events.emit('traffic.tick', {
        at: atMs,
        inbounds: [],
        outbounds: [],
        clients,
        onlines: this.onlines(),
      });
      if (clients.length === 0) return null;
      const enforcement = await this.deps.store.traffic.enforce(
        now,
        clients.length > LIST_CHECK_MAX ? 'all' : clients.map((c) => c.email),
      );
      if (enforcement.renewed.length > 0)
        this.deps.events.emit('clients.changed', { emails: enforcement.renewed, action: 'renewed' });
      if (enforcement.depleted.length > 0)
        this.deps.events.emit('clients.changed', { emails: enforcement.depleted, action: 'depleted' });
      if (enforcement.inboundsDisabled.length > 0)
        this.deps.events.emit('inbounds.changed', { ids: enforcement.inboundsDisabled, action: 'depleted' });
      return enforcement;
    });
  }

  outbounds(): Promise<OutboundTrafficRow[]> {
    return this.deps.store.traffic.outbounds();
  }

  /** Zeroes one outbound's counters, or all of them with `-alltags-`. */
  async resetOutbounds(tag: string): Promise<number> {
    const t = tag.trim();
    if (t === '') throw new DomainError(`tag: required (an outbound tag, or ${ALL_OUTBOUNDS_TAG} for every outbound)`);
    return this.deps.store.traffic.resetOutbounds(t === ALL_OUTBOUNDS_TAG ? 'all' : t);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => {});
    return run;
  }

  private async runTick(enforce: boolean): Promise<TickResult> {
    const { deltas, timings } = await this.account();
    const now = this.deps.clock.now();
    const settings = await this.deps.settings.effective();

    const ipLimitLines = await this.recordIps(settings.ipLimitEnable);

    let enforcement: EnforcementResult | null = null;
    let restartWanted = false;
    if (enforce) {
      const started = performance.now();
      const full = this.fullSweepDue || now - this.lastFullSweep >= FULL_SWEEP_EVERY_MS;
      this.fullSweepDue = false;
      try {
        const sweep = full || deltas.clients.length > LIST_CHECK_MAX;
        enforcement = await this.deps.store.traffic.enforce(now, sweep ? 'all' : deltas.clients.map((c) => c.email));
      } catch (err) {
        if (full) this.fullSweepDue = true;
        throw err;
      }
      if (full) this.lastFullSweep = now;
      timings.enforce = performance.now() - started;
      if (enforcement.renewed.length > 0)
        this.deps.events.emit('clients.changed', { emails: enforcement.renewed, action: 'renewed' });
      if (enforcement.depleted.length > 0)
        this.deps.events.emit('clients.changed', { emails: enforcement.depleted, action: 'depleted' });
      if (enforcement.inboundsDisabled.length > 0) {
        this.deps.events.emit('inbounds.changed', { ids: enforcement.inboundsDisabled, action: 'depleted' });
      }
      restartWanted = enforcement.depleted.length > 0 && settings.restartCoreOnClientDisable;
    }
    return { deltas, enforcement, ipLimitLines, coreRestarted: false, restartWanted, timings };
  }

  /** Polls the core and stores the deltas; baselines advance only once the deltas are stored. */
  private async account(): Promise<{ deltas: TrafficDeltas; timings: TickResult['timings'] }> {
    const t0 = performance.now();
    const status = this.deps.core.status();
    if (status.pid !== null && status.pid !== this.corePid) {
      // A new core process counts from zero: forget the previous process's values.
      this.book.reset();
      this.corePid = status.pid;
    }
    let stats: CoreStat[] = [];
    if (status.state === 'running') {
      try {
        stats = await this.deps.core.queryStats('');
      } catch (err) {
        this.deps.warn?.('querying core counters failed', { error: String(err) });
        stats = [];
      }
    }
    const now = this.deps.clock.now();
    const { deltas, commit } = this.book.diff(stats, now);
    const t1 = performance.now();
    await this.deps.store.traffic.applyDeltas(deltas, now);
    commit();
    // Every store of counters is announced (flush() too): the paged list's catalog adds them as they were stored.
    this.deps.events.emit('traffic.tick', { at: now, ...deltas, onlines: this.onlines() });
    const timings = { poll: t1 - t0, write: performance.now() - t1, enforce: 0 };
    return { deltas, timings };
  }

  private async recordIps(enabled: boolean): Promise<number> {
    const { accessLog } = this.deps;
    if (!accessLog) return 0;
    let seen: AccessObservation[];
    try {
      seen = await accessLog.read(); // drained even when off, so turning it on does not replay old lines
    } catch (err) {
      this.deps.warn?.('reading the core access log failed', { error: String(err) });
      return 0;
    }
    const now = this.deps.clock.now();
    const nowSec = Math.floor(now / 1000);
    const repo = this.deps.store.traffic;
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await repo.pruneIps(nowSec - IP_RETENTION_SEC);
    }
    if (!enabled || seen.length === 0) return 0;
    await repo.recordIps(seen, nowSec);
    const observed = new Map<string, Set<string>>();
    for (const s of seen) {
      let set = observed.get(s.email);
      if (!set) observed.set(s.email, (set = new Set()));
      set.add(s.ip);
    }
    const limits = await repo.ipLimits([...observed.keys()]);
    if (limits.size === 0) return 0;
    const ips = await repo.ipsOf([...limits.keys()]);
    const lines: string[] = [];
    for (const [email, limit] of limits) {
      for (const ip of excessIps(ips.get(email) ?? [], limit, nowSec, observed.get(email)!))
        lines.push(ipLimitLine(email, ip, now));
    }
    if (lines.length > 0 && this.deps.ipLimitLog) {
      try {
        await this.deps.ipLimitLog.append(lines);
      } catch (err) {
        this.deps.warn?.('writing the IP-limit log failed', { error: String(err) });
      }
    }
    return lines.length;
  }
}
