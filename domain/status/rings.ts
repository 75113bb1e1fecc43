// History rings: fixed-capacity ring buffers of (t seconds, v) samples, bucket aggregation, and the compact
// persisted form. Pure logic; the file I/O lives in host-agent/metrics/history-file.ts.
import { HISTORY_WINDOW_S, SAMPLE_INTERVAL_MS, type HistorySample } from './model.js';

/** Enough slots for the window at the sample interval, plus slack for a sampler that ticks a little early. */
export const RING_CAPACITY = Math.ceil((HISTORY_WINDOW_S * 1000) / SAMPLE_INTERVAL_MS) + 300;

export class Ring {
  private readonly ts: Float64Array;
  private readonly vs: Float64Array;
  private head = 0; // index of the oldest sample
  private len = 0;

  constructor(readonly capacity = RING_CAPACITY) {
    this.ts = new Float64Array(capacity);
    this.vs = new Float64Array(capacity);
  }

  get size(): number {
    return this.len;
  }

  /** Adds a sample; the oldest one falls out when the ring is full. Non-finite values are ignored. */
  push(t: number, v: number): void {
    if (!Number.isFinite(t) || !Number.isFinite(v)) return;
    const i = (this.head + this.len) % this.capacity;
    this.ts[i] = t;
    this.vs[i] = v;
    if (this.len < this.capacity) this.len++;
    else this.head = (this.head + 1) % this.capacity;
  }

  /** Visits samples oldest first. */
  forEach(fn: (t: number, v: number) => void): void {
    for (let k = 0; k < this.len; k++) {
      const i = (this.head + k) % this.capacity;
      fn(this.ts[i]!, this.vs[i]!);
    }
  }

  last(): HistorySample | null {
    if (this.len === 0) return null;
    const i = (this.head + this.len - 1) % this.capacity;
    return { t: this.ts[i]!, v: this.vs[i]! };
  }

  toArrays(): { t: number[]; v: number[] } {
    const t: number[] = [];
    const v: number[] = [];
    this.forEach((a, b) => {
      t.push(a);
      v.push(b);
    });
    return { t, v };
  }
}

const round = (v: number): number => Math.round(v * 100) / 100;

/**
 * Groups the samples newer than `nowS - windowS` into buckets aligned to absolute multiples of `bucketS`
 * (so two calls share an x-axis) and averages each; empty buckets (gaps, e.g. while the panel was down) are
 * left out rather than filled. `t` is the bucket start in seconds; `v` is rounded to 2 decimals.
 */
export function aggregate(
  ring: Ring | undefined,
  bucketS: number,
  nowS: number,
  windowS = HISTORY_WINDOW_S,
): HistorySample[] {
  if (!ring || ring.size === 0 || bucketS <= 0) return [];
  const cutoff = nowS - windowS;
  const buckets = new Map<number, { sum: number; n: number }>();
  let ordered = true;
  let prev = -Infinity;
  ring.forEach((t, v) => {
    if (t <= cutoff || t > nowS) return;
    const b = Math.floor(t / bucketS) * bucketS;
    if (b < prev) ordered = false;
    prev = b;
    const acc = buckets.get(b);
    if (acc) {
      acc.sum += v;
      acc.n++;
    } else buckets.set(b, { sum: v, n: 1 });
  });
  const out: HistorySample[] = [];
  for (const [t, { sum, n }] of buckets) out.push({ t, v: round(sum / n) });
  if (!ordered) out.sort((a, b) => a.t - b.t);
  return out;
}

/** The persisted form of a set of rings: per series, times delta-encoded (mostly "2") and values. */
export interface HistoryDump {
  version: 1;
  /** Unix seconds when written. */
  savedAt: number;
  series: Record<string, { t: number[]; v: number[] }>;
}

/** A named set of rings (one per metric, or per observatory tag). */
export class RingSet {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly capacity = RING_CAPACITY) {}

  push(name: string, t: number, v: number): void {
    let r = this.rings.get(name);
    if (!r) this.rings.set(name, (r = new Ring(this.capacity)));
    r.push(t, v);
  }

  get(name: string): Ring | undefined {
    return this.rings.get(name);
  }
  has(name: string): boolean {
    return this.rings.has(name);
  }
  names(): string[] {
    return [...this.rings.keys()];
  }
  drop(name: string): void {
    this.rings.delete(name);
  }

  aggregate(name: string, bucketS: number, nowS: number): HistorySample[] {
    return aggregate(this.rings.get(name), bucketS, nowS);
  }

  /** Series keyed by `prefix + name`, so several sets can share one file. */
  dump(prefix = ''): HistoryDump['series'] {
    const out: HistoryDump['series'] = {};
    for (const [name, ring] of this.rings) {
      const t = new Array<number>(ring.size);
      const v = new Array<number>(ring.size);
      let i = 0;
      let prev = 0;
      ring.forEach((ts, val) => {
        t[i] = i === 0 ? ts : ts - prev;
        v[i] = Math.round(val * 100) / 100;
        prev = ts;
        i++;
      });
      out[prefix + name] = { t, v };
    }
    return out;
  }

  /**
   * Loads the series whose key starts with `prefix` from a dump (anything malformed is ignored), keeping only
   * samples inside the window ending at `nowS`. Samples are appended before any taken since start.
   */
  restore(series: unknown, nowS: number, prefix = ''): number {
    if (!series || typeof series !== 'object') return 0;
    let loaded = 0;
    for (const [key, s] of Object.entries(series as Record<string, unknown>)) {
      if (!key.startsWith(prefix)) continue;
      const name = key.slice(prefix.length);
      if (!name || !s || typeof s !== 'object') continue;
      const { t, v } = s as { t?: unknown; v?: unknown };
      if (!Array.isArray(t) || !Array.isArray(v) || t.length !== v.length) continue;
      const ring = new Ring(this.capacity);
      let abs = 0;
      for (let i = 0; i < t.length; i++) {
        const dt = Number(t[i]);
        const val = Number(v[i]);
        if (!Number.isFinite(dt)) break;
        abs = i === 0 ? dt : abs + dt;
        if (abs > nowS - HISTORY_WINDOW_S && abs <= nowS && Number.isFinite(val)) {
          ring.push(abs, val);
          loaded++;
        }
      }
      const existing = this.rings.get(name);
      existing?.forEach((a, b) => ring.push(a, b));
      if (ring.size > 0) this.rings.set(name, ring);
    }
    return loaded;
  }
}

export function isHistoryDump(x: unknown): x is HistoryDump {
  return (
    !!x && typeof x === 'object' && (x as HistoryDump).version === 1 && typeof (x as HistoryDump).series === 'object'
  );
}
