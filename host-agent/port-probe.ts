// "Port must be free": try to bind the port on the listen address for each transport, then release it at once.
// The core sets SO_REUSEPORT, so a running core's port cannot be detected any other way (core-notes).
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import type { PortProbe, PortProbeResult } from '../domain/ports/port-probe.js';
import type { Transports } from '../domain/inbounds/rules.js';

const anyHost = (listen: string): string =>
  listen === '' || listen === '0.0.0.0' || listen === '::' || listen === '::0' ? '0.0.0.0' : listen;

const describe = (err: NodeJS.ErrnoException): string => {
  switch (err.code) {
    case 'EADDRINUSE':
      return 'address already in use';
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)';
    case 'EADDRNOTAVAIL':
      return 'the listen address is not available on this host';
    default:
      return err.message;
  }
};

function bindTcp(host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

function bindUdp(host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.close();
      resolve(err);
    });
    socket.bind({ address: host, port, exclusive: true }, () => socket.close(() => resolve(null)));
  });
}

export const hostPortProbe: PortProbe = {
  async probe(listen: string, port: number, t: Transports): Promise<PortProbeResult> {
    const host = anyHost(listen);
    if (t.tcp) {
      const err = await bindTcp(host, port);
      if (err) return { free: false, transport: 'tcp', reason: describe(err) };
    }
    if (t.udp) {
      const err = await bindUdp(host, port);
      if (err) return { free: false, transport: 'udp', reason: describe(err) };
    }
    return { free: true };
  },
};
