// Fakes for the host metrics port: a host whose readings a test sets, an in-memory history file, and a core
// metrics endpoint that answers what the test sets.
import type {
  CoreMetricsProbe,
  CoreVarsResult,
  HistoryFile,
  HostMetrics,
  HostReading,
} from '../../domain/ports/host.js';

export function hostReading(over: Partial<HostReading> = {}): HostReading {
  return {
    cpu: { idle: 0, total: 0 },
    mem: { current: 0, total: 0 },
    swap: { current: 0, total: 0 },
    disk: { current: 0, total: 0 },
    net: { sent: 0, recv: 0 },
    tcpCount: 0,
    udpCount: 0,
    uptime: 0,
    load: { load1: 0, load5: 0, load15: 0 },
    ...over,
  };
}

export class FakeHost implements HostMetrics {
  reading: HostReading = hostReading();
  reads = 0;
  async read(): Promise<HostReading> {
    this.reads++;
    return structuredClone(this.reading);
  }
}

export class MemoryHistoryFile implements HistoryFile {
  data: unknown = null;
  saves = 0;
  async load() {
    return this.data === null ? null : structuredClone(this.data);
  }
  async save(data: unknown) {
    this.saves++;
    this.data = structuredClone(data);
  }
}

export class FakeCoreMetrics implements CoreMetricsProbe {
  answer: CoreVarsResult = { ok: false, reason: 'down' };
  addresses: string[] = [];
  async fetchVars(address: string): Promise<CoreVarsResult> {
    this.addresses.push(address);
    return structuredClone(this.answer);
  }
}
