// Core runtime metrics from the core's expvar endpoint (`/debug/vars`, served by Xray's `metrics` section) and
// the observatory's per-outbound results. Pure parsing; the HTTP call is the CoreMetricsProbe port.
import type { CoreMetric } from './model.js';

export interface CoreMetricsState {
  /** True when the last sample read the endpoint successfully. */
  enabled: boolean;
  /** The metrics listener (`host:port`), "" when the config has none. */
  listen: string;
  /** Why there are no metrics ("" when enabled). */
  reason: string;
  /** Unix seconds of the last successful reading, 0 when none. */
  updatedAt: number;
  /** The latest values, or null when none were read yet. */
  values: Record<CoreMetric, number> | null;
}

export interface ObservatoryEntry {
  tag: string;
  alive: boolean;
  /** Milliseconds of the last probe. */
  delay: number;
  /** Unix seconds. */
  lastSeenTime: number;
  lastTryTime: number;
  /** Unix seconds of the sample that read it. */
  updatedAt: number;
}

const asObj = (x: unknown): Record<string, unknown> | null =>
  x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
const num = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : Number(x) || 0);

/** `:11111`, `0.0.0.0:11111`, `[::]:11111` → an address the panel can dial on loopback. */
export function dialAddress(listen: string): string | null {
  const s = listen.trim();
  const m = /^(?:\[([^\]]*)\]|([^:]*)):(\d{1,5})$/.exec(s);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  const host = m[1] ?? m[2] ?? '';
  if (m[1] !== undefined) return `[${host === '' || host === '::' ? '::1' : host}]:${port}`;
  if (host === '' || host === '0.0.0.0') return `127.0.0.1:${port}`;
  return `${host}:${port}`;
}

/**
 * Where the core serves its metrics, from a core config: `metrics.listen` when set, else the inbound routed to
 * the `metrics.tag` outbound (the older dokodemo-door form). null when the config has no usable `metrics`.
 */
export function metricsListenFrom(config: unknown): string | null {
  const cfg = asObj(config);
  const metrics = asObj(cfg?.metrics);
  if (!cfg || !metrics) return null;
  if (typeof metrics.listen === 'string' && metrics.listen.trim()) return dialAddress(metrics.listen);
  const tag = typeof metrics.tag === 'string' ? metrics.tag : '';
  if (!tag) return null;
  const rules = (asObj(cfg.routing)?.rules as unknown[]) ?? [];
  const inboundTags = new Set<string>();
  for (const r of Array.isArray(rules) ? rules : []) {
    const rule = asObj(r);
    if (rule?.outboundTag !== tag) continue;
    const tags = Array.isArray(rule.inboundTag) ? rule.inboundTag : [rule.inboundTag];
    for (const t of tags) if (typeof t === 'string') inboundTags.add(t);
  }
  for (const i of Array.isArray(cfg.inbounds) ? cfg.inbounds : []) {
    const inb = asObj(i);
    if (!inb || typeof inb.tag !== 'string' || !inboundTags.has(inb.tag)) continue;
    const port = num(inb.port);
    if (!Number.isInteger(port) || port < 1) continue;
    const host = typeof inb.listen === 'string' && inb.listen ? inb.listen : '';
    return dialAddress(host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
  }
  return null;
}

/** The five memory figures (`memstats`) and the observatory results from a `/debug/vars` body. */
export function parseCoreVars(
  vars: unknown,
  nowS: number,
): { values: Record<CoreMetric, number>; observatory: ObservatoryEntry[] } | null {
  const root = asObj(vars);
  const ms = asObj(root?.memstats);
  if (!root || !ms) return null;
  const numGC = num(ms.NumGC);
  const pauses = Array.isArray(ms.PauseNs) ? ms.PauseNs : [];
  // Go keeps the last 256 pauses in a circular buffer; the most recent is at (NumGC+255) % 256.
  const lastPause = numGC > 0 && pauses.length === 256 ? num(pauses[(numGC + 255) % 256]) : 0;
  const values: Record<CoreMetric, number> = {
    coreAlloc: num(ms.Alloc ?? ms.HeapAlloc),
    coreSys: num(ms.Sys),
    coreHeapObjects: num(ms.HeapObjects),
    coreNumGC: numGC,
    corePauseNs: lastPause,
  };
  const observatory: ObservatoryEntry[] = [];
  const obs = asObj(root.observatory);
  for (const [key, raw] of Object.entries(obs ?? {})) {
    const e = asObj(raw);
    if (!e) continue;
    const tag = typeof e.outbound_tag === 'string' && e.outbound_tag ? e.outbound_tag : key;
    if (!tag || tag.length > 128 || /[\u0000-\u001f\u007f]/.test(tag)) continue;
    observatory.push({
      tag,
      alive: e.alive === true,
      delay: num(e.delay),
      lastSeenTime: num(e.last_seen_time),
      lastTryTime: num(e.last_try_time),
      updatedAt: nowS,
    });
  }
  observatory.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return { values, observatory };
}
