// A fake "port must be free" probe for handler tests: ports listed in `taken` fail the bind test.
import type { PortProbe, PortProbeResult } from '../../domain/ports/port-probe.js';
import type { Transports } from '../../domain/inbounds/rules.js';

export class FakePortProbe implements PortProbe {
  /** Keys `tcp/443` or `udp/443` that the host already holds. */
  readonly taken = new Set<string>();
  readonly calls: { listen: string; port: number; transports: Transports }[] = [];

  async probe(listen: string, port: number, transports: Transports): Promise<PortProbeResult> {
    this.calls.push({ listen, port, transports });
    if (transports.tcp && this.taken.has(`tcp/${port}`))
      return { free: false, transport: 'tcp', reason: 'address already in use' };
    if (transports.udp && this.taken.has(`udp/${port}`))
      return { free: false, transport: 'udp', reason: 'address already in use' };
    return { free: true };
  }
}
