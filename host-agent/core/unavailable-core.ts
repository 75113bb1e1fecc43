// The core port when no usable core binary exists: the panel keeps working and says why the core is down.
import type { CoreControl, CoreStatus, OutboundProbeInput, OutboundProbeResult } from '../../domain/ports/core.js';
import { probeOutbound } from './outbound-test.js';

export class UnavailableCore implements CoreControl {
  constructor(private reason: string) {}
  status(): CoreStatus {
    return { state: 'stopped', version: '', flavour: 'unknown', error: this.reason, pid: null };
  }
  output(): string {
    return this.reason;
  }
  async test() {
    return { ok: true, skipped: true, output: `not tested: ${this.reason}` };
  }
  async restart(): Promise<void> {
    throw new Error(this.reason);
  }
  async stop(): Promise<void> {
    throw new Error('core is not running');
  }
  async addUser(): Promise<void> {}
  async removeUser(): Promise<void> {}
  async addInbound(): Promise<void> {}
  async removeInbound(): Promise<void> {}
  async queryStats() {
    return [];
  }
  async writeConfig(): Promise<void> {}
  probeOutbound(input: OutboundProbeInput): Promise<OutboundProbeResult> {
    return probeOutbound(input, null, process.env);
  }
}
