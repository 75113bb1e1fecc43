// The server status snapshot, the history metric names and bucket sizes (spec: Server status snapshot, History
// sample, Limits). Pure shapes; the route parameters are parsed in input.ts.

export interface Usage {
  /** Bytes in use. */
  current: number;
  /** Bytes in total. */
  total: number;
}

export interface StatusSnapshot {
  /** Percent of all CPUs busy over the last sample interval. */
  cpu: number;
  mem: Usage;
  swap: Usage;
  disk: Usage;
  /** Bytes per second over the last sample interval, summed over every interface but loopback. */
  netIO: { up: number; down: number };
  core: { state: string; version: string };
  tcpCount: number;
  load: { load1: number; load5: number; load15: number };
  /** v-prefixed, e.g. "v0.1.0". */
  panelVersion: string;
  // Beyond the spec's fields (the reference panel's status has them too): the UI's overview shows them.
  udpCount: number;
  /** Bytes since boot over every interface but loopback. */
  netTraffic: { sent: number; recv: number };
  /** Seconds since the host booted / since this panel process started. */
  uptime: number;
  panelUptime: number;
}

/** One history point: `t` Unix seconds (bucket start), `v` the mean of the samples in the bucket. */
export interface HistorySample {
  t: number;
  v: number;
}

export const SAMPLE_INTERVAL_MS = 2000;
/** How far back the history rings reach (spec Limits: about 6 hours). */
export const HISTORY_WINDOW_S = 6 * 3600;
export const HISTORY_BUCKETS = [2, 30, 60, 120, 180, 300] as const;
export const HISTORY_METRICS = ['cpu', 'mem', 'netUp', 'netDown', 'online', 'load1', 'load5', 'load15'] as const;
export const CORE_METRICS = ['coreAlloc', 'coreSys', 'coreHeapObjects', 'coreNumGC', 'corePauseNs'] as const;

export type HistoryMetric = (typeof HISTORY_METRICS)[number];
export type CoreMetric = (typeof CORE_METRICS)[number];

export const vPrefixed = (version: string): string => (/^v/i.test(version) ? version : `v${version}`);

export function emptySnapshot(panelVersion: string): StatusSnapshot {
  const zero = { current: 0, total: 0 };
  return {
    cpu: 0,
    mem: { ...zero },
    swap: { ...zero },
    disk: { ...zero },
    netIO: { up: 0, down: 0 },
    core: { state: 'stopped', version: '' },
    tcpCount: 0,
    udpCount: 0,
    netTraffic: { sent: 0, recv: 0 },
    uptime: 0,
    panelUptime: 0,
    load: { load1: 0, load5: 0, load15: 0 },
    panelVersion: vPrefixed(panelVersion),
  };
}
