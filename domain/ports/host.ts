// The host metrics port: cheap readings of the panel host, the core's expvar endpoint, and the file the
// history rings persist to. host-agent/metrics implements them; tests use fakes.

/** Cumulative CPU time since boot (any unit, e.g. jiffies); the sampler turns two readings into a percent. */
export interface CpuTimes {
  idle: number;
  total: number;
}

export interface HostReading {
  /** null when unreadable (not Linux). */
  cpu: CpuTimes | null;
  mem: { current: number; total: number };
  swap: { current: number; total: number };
  disk: { current: number; total: number };
  /** Cumulative bytes since boot over every interface but loopback. */
  net: { sent: number; recv: number };
  tcpCount: number;
  udpCount: number;
  /** Seconds since the host booted. */
  uptime: number;
  load: { load1: number; load5: number; load15: number };
}

export interface HostMetrics {
  /** Never throws: what cannot be read is reported as zero. */
  read(): Promise<HostReading>;
}

export type CoreVarsResult = { ok: true; vars: unknown } | { ok: false; reason: string };

export interface CoreMetricsProbe {
  /**
   * GET http://{address}/debug/vars with a short timeout. Never throws and never hangs: a core that is down,
   * slow, or answers garbage gives `{ok: false, reason}`.
   */
  fetchVars(address: string): Promise<CoreVarsResult>;
}

/** Where the history rings persist (a file in the data directory). */
export interface HistoryFile {
  /** The parsed content, or null when there is none or it is unreadable. */
  load(): Promise<unknown | null>;
  /** Writes atomically. */
  save(data: unknown): Promise<void>;
}

/** A runtime without host readings: everything reads zero. */
export const noHost: HostMetrics = {
  async read() {
    const zero = { current: 0, total: 0 };
    return {
      cpu: null,
      mem: { ...zero },
      swap: { ...zero },
      disk: { ...zero },
      net: { sent: 0, recv: 0 },
      tcpCount: 0,
      udpCount: 0,
      uptime: 0,
      load: { load1: 0, load5: 0, load15: 0 },
    };
  },
};

/** A runtime without the core's metrics endpoint. */
export const noCoreMetrics: CoreMetricsProbe = {
  async fetchVars() {
    return { ok: false, reason: 'core metrics are not available on this host' };
  },
};
