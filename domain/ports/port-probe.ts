// The host's port binding test ("port must be free"). host-agent/port-probe.ts implements it with real sockets;
// handler tests use a fake.
import type { Transports } from '../inbounds/rules.js';

export type PortProbeResult = { free: true } | { free: false; transport: 'tcp' | 'udp'; reason: string };

export interface PortProbe {
  /**
   * Tries to bind `port` on `listen` ('' = every address) for each requested transport and releases it at once.
   * `free: false` names the transport that could not be bound and why (e.g. "address already in use").
   */
  probe(listen: string, port: number, transports: Transports): Promise<PortProbeResult>;
}

/** Without a bind test only inbound-vs-inbound port collisions are checked. */
export const noPortProbe: PortProbe = { probe: async () => ({ free: true }) };
