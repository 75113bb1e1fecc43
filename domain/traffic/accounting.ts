// Delta accounting (DESIGN.md principle 4): the core's counters are read WITHOUT reset and compared with the
// values remembered from the previous poll. A counter that went backwards means the core restarted, so its
// whole current value is new traffic; a counter that is missing moved nothing (a user's counters appear only
// after its first connection). The core's own API inbound counts its gRPC calls and is ignored.
import type { CoreStat } from '../ports/core.js';

export type CounterKind = 'user' | 'inbound' | 'outbound';

export interface ParsedCounter {
  kind: CounterKind;
  /** Email for `user`, tag for `inbound`/`outbound`. */
  key: string;
  direction: 'up' | 'down';
}

const UPLINK = '>>>traffic>>>uplink';
const DOWNLINK = '>>>traffic>>>downlink';

/** `user>>>EMAIL>>>traffic>>>uplink` → {kind:'user', key: EMAIL, direction:'up'}; anything else → null. */
export function parseCounterName(name: string): ParsedCounter | null {
  let direction: 'up' | 'down';
  let end: number;
  if (name.endsWith(UPLINK)) {
    direction = 'up';
    end = name.length - UPLINK.length;
  } else if (name.endsWith(DOWNLINK)) {
    direction = 'down';
    end = name.length - DOWNLINK.length;
  } else return null;
  const sep = name.indexOf('>>>');
  if (sep <= 0 || sep + 3 >= end) return null;
  const kind = name.slice(0, sep);
  if (kind !== 'user' && kind !== 'inbound' && kind !== 'outbound') return null;
  return { kind, key: name.slice(sep + 3, end), direction };
}

export interface CounterDelta {
  up: number;
  down: number;
}

export interface TrafficDeltas {
  clients: { email: string; up: number; down: number }[];
  inbounds: { tag: string; up: number; down: number }[];
  outbounds: { tag: string; up: number; down: number }[];
}

export const emptyDeltas = (): TrafficDeltas => ({ clients: [], inbounds: [], outbounds: [] });

export const isEmptyDeltas = (d: TrafficDeltas): boolean =>
  d.clients.length === 0 && d.inbounds.length === 0 && d.outbounds.length === 0;

export interface DeltaOptions {
  /** Tag of the core's API inbound, whose counters are ignored. Default `api`. */
  apiTag?: string;
}

interface Group {
  kind: CounterKind;
  key: string;
  up: number;
  down: number;
  /** Poll in which up/down were last accumulated. */
  poll: number;
  /** Time (ms, as given to diff) of the last poll in which this counter group moved; 0 never. */
  movedAt: number;
}

interface Entry {
  group: Group;
  direction: 'up' | 'down';
  /** Committed baseline; undefined until the first commit. */
  value: number | undefined;
  /** Value seen by the latest diff, committed by `commit()`. */
  pending: number;
}

/**
 * The remembered baselines of one core process. `diff()` returns the traffic moved since the committed
 * baselines; `commit()` of that diff advances them (call it once the deltas are stored, so a failed write is
 * retried by the next poll instead of lost). Each counter name is parsed once, on first sight.
 */
export class CounterBook {
  private entries = new Map<string, Entry | null>();
  private groups = new Map<string, Group>();
  private poll = 0;

  constructor(private opts: DeltaOptions = {}) {}

  /** A new core process counts from zero: forget everything. */
  reset(): void {
    this.entries.clear();
    this.groups.clear();
  }

  /** Baseline of one counter (for tests and diagnostics). */
  baseline(name: string): number | undefined {
    return this.entries.get(name)?.value ?? undefined;
  }

  /** Emails whose counters moved (in a committed diff) at or after `since` (ms). */
  movedSince(since: number): string[] {
    const out: string[] = [];
    for (const g of this.groups.values()) if (g.kind === 'user' && g.movedAt > 0 && g.movedAt >= since) out.push(g.key);
    return out;
  }

  /** `now` (ms) stamps the groups that moved, for movedSince(). */
  diff(stats: readonly CoreStat[], now = 0): { deltas: TrafficDeltas; commit(): void } {
    const poll = ++this.poll;
    const apiTag = this.opts.apiTag ?? 'api';
    const seen: Entry[] = [];
    const moved: Group[] = [];
    for (const stat of stats) {
      let entry = this.entries.get(stat.name);
      if (entry === undefined) {
        const parsed = parseCounterName(stat.name);
        if (!parsed || (parsed.kind === 'inbound' && parsed.key === apiTag)) entry = null;
        else {
          const gk = `${parsed.kind}\n${parsed.key}`;
          let group = this.groups.get(gk);
          if (!group)
            this.groups.set(gk, (group = { kind: parsed.kind, key: parsed.key, up: 0, down: 0, poll: 0, movedAt: 0 }));
          entry = { group, direction: parsed.direction, value: undefined, pending: 0 };
        }
        this.entries.set(stat.name, entry);
      }
      if (entry === null) continue;
      const value = Number(stat.value);
      if (!Number.isFinite(value) || value < 0) continue;
      const before = entry.value;
      // Backwards (the core restarted) or first sight of a counter of this core process: all of it is new.
      const delta = before === undefined || value < before ? value : value - before;
      entry.pending = value;
      seen.push(entry);
      if (delta <= 0) continue;
      const g = entry.group;
      if (g.poll !== poll) {
        g.poll = poll;
        g.up = 0;
        g.down = 0;
        moved.push(g);
      }
      g[entry.direction] += delta;
    }
    const deltas = emptyDeltas();
    for (const g of moved) {
      if (g.kind === 'user') deltas.clients.push({ email: g.key, up: g.up, down: g.down });
      else if (g.kind === 'inbound') deltas.inbounds.push({ tag: g.key, up: g.up, down: g.down });
      else deltas.outbounds.push({ tag: g.key, up: g.up, down: g.down });
    }
    return {
      deltas,
      commit: () => {
        for (const e of seen) e.value = e.pending;
        for (const g of moved) g.movedAt = now;
      },
    };
  }
}

/**
 * The traffic moved since `baselines` (counter name → last value seen), as a pure function: the deltas of the
 * counters that moved and the new baselines. Counters absent from `stats` keep their baseline.
 */
export function computeDeltas(
  stats: readonly CoreStat[],
  baselines: ReadonlyMap<string, number>,
  opts: DeltaOptions = {},
): { deltas: TrafficDeltas; baselines: Map<string, number> } {
  const book = new CounterBook(opts);
  // Seed the book with the baselines, then diff.
  book.diff([...baselines].map(([name, value]) => ({ name, value }))).commit();
  const { deltas, commit } = book.diff(stats);
  commit();
  const next = new Map(baselines);
  for (const s of stats) {
    const b = book.baseline(s.name);
    if (b !== undefined) next.set(s.name, b);
  }
  return { deltas, baselines: next };
}
