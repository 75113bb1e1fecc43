// A fake core for handler tests: records every call, keeps a state, and serves counters the test sets.
import type {
  CoreControl,
  CoreStat,
  CoreStatus,
  CoreUser,
  OutboundProbeInput,
  OutboundProbeResult,
} from '../../domain/ports/core.js';
import type { Protocol } from '../../domain/inbounds/model.js';

export class FakeCore implements CoreControl {
  calls: { op: string; args: unknown[] }[] = [];
  current: CoreStatus = { state: 'running', version: '1.8.24', flavour: 'xray', error: '', pid: 4242 };
  lastConfig: object | null = null;
  stats: CoreStat[] = [];
  /** When set, `test()` rejects configs with this output. */
  rejectConfigs: string | null = null;
  out = '';

  status(): CoreStatus {
    return { ...this.current };
  }
  output(): string {
    return this.out;
  }
  async test(config: object) {
    this.calls.push({ op: 'test', args: [config] });
    return this.rejectConfigs ? { ok: false, output: this.rejectConfigs } : { ok: true, output: 'Configuration OK.' };
  }
  async restart(config: object) {
    this.calls.push({ op: 'restart', args: [config] });
    if (this.rejectConfigs) throw new Error(`invalid core config: ${this.rejectConfigs}`);
    this.lastConfig = config;
    this.current = { ...this.current, state: 'running', error: '' };
  }
  async stop() {
    this.calls.push({ op: 'stop', args: [] });
    if (this.current.state !== 'running') throw new Error('core is not running');
    this.current = { ...this.current, state: 'stopped', pid: null };
  }
  async addUser(tag: string, protocol: Protocol, user: CoreUser) {
    this.calls.push({ op: 'addUser', args: [tag, protocol, user] });
  }
  async removeUser(tag: string, email: string) {
    this.calls.push({ op: 'removeUser', args: [tag, email] });
  }
  async addInbound(inbound: object) {
    this.calls.push({ op: 'addInbound', args: [inbound] });
  }
  async removeInbound(tag: string) {
    this.calls.push({ op: 'removeInbound', args: [tag] });
  }
  async queryStats(pattern = '') {
    return this.stats.filter((s) => s.name.includes(pattern));
  }
  async writeConfig(config: object) {
    this.calls.push({ op: 'writeConfig', args: [config] });
    this.lastConfig = config;
  }
  /** Result of the next probeOutbound calls. */
  probeResult: OutboundProbeResult = { success: true, delay: 12, error: '' };
  async probeOutbound(input: OutboundProbeInput) {
    this.calls.push({ op: 'probeOutbound', args: [input] });
    return { ...this.probeResult };
  }

  ops(op: string) {
    return this.calls.filter((c) => c.op === op).map((c) => c.args);
  }
}
