// Pure rules about inbounds: dual-encoded JSON fields, transports and port conflicts, flow eligibility, output
// clean-up, tag names. No I/O.
import type { InboundRecord, Json, Protocol } from './model.js';
import { jsonInputProblem } from '../shared/json-input.js';

export interface Transports {
  tcp: boolean;
  udp: boolean;
}

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * `settings`, `streamSettings`, `sniffing` arrive as objects or JSON-encoded strings. Returns the object, or an
 * error message naming the field. Empty string / null / undefined mean `{}`.
 */
export function parseJsonObject(field: string, value: unknown): Json | string {
  if (value === undefined || value === null || value === '') return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return `${field}: malformed JSON`;
    }
    if (parsed === null) return {};
    if (!isObject(parsed)) return `${field}: must be a JSON object`;
  } else if (!isObject(value)) return `${field}: must be an object or a JSON-encoded object`;
  // Nothing is stored that the config builder could not build (depth), or that differs from what was sent.
  return jsonInputProblem(parsed, field) ?? (parsed as Json);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const networkOf = (stream: Json): string => str(stream.network) || 'tcp';
export const securityOf = (stream: Json): string => str(stream.security) || 'none';

/** Which layer-4 transports an inbound listens on (TCP-only and UDP-only inbounds may share a port number). */
export function transportsOf(protocol: Protocol, settings: Json, stream: Json): Transports {
  switch (protocol) {
    case 'hysteria':
    case 'hysteria2':
    case 'wireguard':
      return { tcp: false, udp: true };
    default:
      break;
  }
  const net = networkOf(stream);
  let bits: Transports =
    net === 'kcp' || net === 'mkcp' || net === 'quic' ? { tcp: false, udp: true } : { tcp: true, udp: false };
  if (protocol === 'shadowsocks' || protocol === 'dokodemo' || protocol === 'tunnel') {
    const key = protocol === 'shadowsocks' ? 'network' : protocol === 'dokodemo' ? 'network' : 'allowedNetwork';
    const list = str(settings[key]);
    if (list) {
      const parts = list.split(',').map((p) => p.trim());
      const next = { tcp: parts.includes('tcp'), udp: parts.includes('udp') };
      if (next.tcp || next.udp) bits = next;
    }
  }
  if ((protocol === 'socks' || protocol === 'mixed') && settings.udp === true) bits = { ...bits, udp: true };
  return bits;
}

export const isAnyListen = (listen: string): boolean =>
  listen === '' || listen === '0.0.0.0' || listen === '::' || listen === '::0';

/** Whether two listen addresses can collide (a wildcard overlaps everything). */
export const listenOverlaps = (a: string, b: string): boolean => isAnyListen(a) || isAnyListen(b) || a === b;

/** Unix-socket listens (`/path`, `@abstract`) have no port. */
export const isSocketListen = (listen: string): boolean => listen.startsWith('/') || listen.startsWith('@');

export const sharedTransports = (a: Transports, b: Transports): Transports => ({
  tcp: a.tcp && b.tcp,
  udp: a.udp && b.udp,
});
export const anyTransport = (t: Transports): boolean => t.tcp || t.udp;
export const transportName = (t: Transports): string => (t.tcp && t.udp ? 'tcp+udp' : t.udp ? 'udp' : 'tcp');

/** spec: Inbound option — VLESS on TCP with tls or reality. */
export function tlsFlowCapable(protocol: string, stream: Json): boolean {
  return protocol === 'vless' && networkOf(stream) === 'tcp' && ['tls', 'reality'].includes(securityOf(stream));
}

/** Where a client's `flow` is meaningful: VLESS or Trojan on TCP with tls or reality. */
export function flowEligible(protocol: string, stream: Json): boolean {
  return (
    (protocol === 'vless' || protocol === 'trojan') &&
    networkOf(stream) === 'tcp' &&
    ['tls', 'reality'].includes(securityOf(stream))
  );
}

/** Fallbacks apply to a VLESS/Trojan master on TCP with TLS. */
export function fallbackMasterCapable(protocol: string, stream: Json): boolean {
  return (
    (protocol === 'vless' || protocol === 'trojan') &&
    networkOf(stream) === 'tcp' &&
    ['tls', 'reality'].includes(securityOf(stream))
  );
}

/**
 * The server-generated tag for an inbound: `inbound-<port>` (node inbounds `n<id>-inbound-<port>`); a suffix on
 * collision.
 */
export function baseTag(port: number, nodeId: number | null, t: Transports): string {
  const prefix = nodeId == null ? '' : `n${nodeId}-`;
  const suffix = t.udp && !t.tcp ? '-udp' : '';
  return `${prefix}inbound-${port}${suffix}`;
}

/** Removes empty placeholders from output (spec: Inbound rules). Returns new objects; input untouched. */
export function cleanStream(stream: Json): Json {
  const out: Json = { ...stream };
  if (Array.isArray(out.externalProxy) && out.externalProxy.length === 0) delete out.externalProxy;
  return out;
}

export function cleanSniffing(sniffing: Json): Json {
  const out: Json = { ...sniffing };
  if (out.enabled !== true) delete out.destOverride;
  return out;
}

/** The stored settings never keep `clients` (projected on read). */
export function stripClients(settings: Json): Json {
  const { clients: _ignored, ...rest } = settings;
  return rest;
}

/** The inbound's shadowsocks method, '' for other protocols. */
export const ssMethodOf = (ib: Pick<InboundRecord, 'protocol' | 'settings'>): string =>
  ib.protocol === 'shadowsocks' ? str(ib.settings.method) : '';
