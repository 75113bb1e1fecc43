// A small, pure CIDR matcher (IPv4 and IPv6, IPv4-mapped IPv6 treated as IPv4) and the client-address rule
// for forwarded headers: X-Forwarded-For / X-Real-IP are believed only when the peer is a trusted proxy.

/** An address as 16 bytes (IPv4 is stored IPv4-mapped: ::ffff:a.b.c.d), or null when it is not an address. */
export function parseIp(text: string): Uint8Array | null {
  let s = text.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (s === '') return null;
  if (!s.includes(':')) {
    const v4 = parseIpv4(s);
    if (!v4) return null;
    const out = new Uint8Array(16);
    out[10] = 0xff;
    out[11] = 0xff;
    out.set(v4, 12);
    return out;
  }
  return parseIpv6(s);
}

function parseIpv4(s: string): Uint8Array | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith('0'))) return null;
    const n = Number(p);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

function parseIpv6(s: string): Uint8Array | null {
  let text = s;
  let tail: Uint8Array | null = null;
  // An embedded IPv4 suffix (::ffff:1.2.3.4, 64:ff9b::1.2.3.4).
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = parseIpv4(text.slice(lastColon + 1));
    if (!tail) return null;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const group = (g: string) => (g === '' ? [] : g.split(':'));
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  const groups = halves.length === 2 ? [...head, ...Array(8 - head.length - rest.length).fill('0'), ...rest] : head;
  if (groups.length !== 8 || (halves.length === 2 && head.length + rest.length > 7)) return null;
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = groups[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  }
  if (tail) out.set(tail, 12);
  return out;
}

const isMappedV4 = (a: Uint8Array) => a.slice(0, 10).every((b) => b === 0) && a[10] === 0xff && a[11] === 0xff;

export interface Cidr {
  base: Uint8Array;
  /** Prefix length over the 128-bit form (an IPv4 /24 is /120 here). */
  bits: number;
}

/** Parses `a.b.c.d/n`, `x::y/n`, or a bare address (a single host). Null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [addr, prefix, extra] = text.trim().split('/');
  if (extra !== undefined || addr === undefined) return null;
  const base = parseIp(addr);
  if (!base) return null;
  const v4 = !addr.includes(':');
  const max = v4 ? 32 : 128;
  let bits = max;
  if (prefix !== undefined) {
    if (!/^\d{1,3}$/.test(prefix)) return null;
    bits = Number(prefix);
    if (bits > max) return null;
  }
  return { base, bits: v4 ? bits + 96 : bits };
}

/** Parses a comma-separated CIDR list; returns the entries that are malformed in `bad`. */
export function parseCidrList(text: string): { cidrs: Cidr[]; bad: string[] } {
  const cidrs: Cidr[] = [];
  const bad: string[] = [];
  for (const part of text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const c = parseCidr(part);
    if (c) cidrs.push(c);
    else bad.push(part);
  }
  return { cidrs, bad };
}

export function cidrContains(cidr: Cidr, ip: Uint8Array): boolean {
  let bits = cidr.bits;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((cidr.base[i]! & mask) !== (ip[i]! & mask)) return false;
  }
  return true;
}

export function ipInCidrs(ip: string, cidrs: Cidr[]): boolean {
  const a = parseIp(ip);
  return !!a && cidrs.some((c) => cidrContains(c, a));
}

/** Canonical text of an address (IPv4-mapped IPv6 shown as IPv4), or the input when it is not an address. */
export function normaliseIp(text: string): string {
  const a = parseIp(text);
  if (!a) return text.trim();
  if (isMappedV4(a)) return `${a[12]}.${a[13]}.${a[14]}.${a[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((a[i]! << 8) | a[i + 1]!);
  // RFC 5952: compress the longest run (at least two) of zero groups, the first one on a tie.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hexes = groups.map((g) => g.toString(16));
  if (best < 0) return hexes.join(':');
  return `${hexes.slice(0, best).join(':')}::${hexes.slice(best + bestLen).join(':')}`;
}

export interface ForwardedHeaders {
  /** X-Forwarded-For, possibly a comma-separated chain. */
  forwardedFor?: string | null;
  /** X-Real-IP. */
  realIp?: string | null;
}

/**
 * The client address of a request. Forwarded headers are believed only when the peer is a trusted proxy; then
 * the X-Forwarded-For chain is walked from the right, skipping trusted proxies, and the first untrusted address
 * is the client (so a client cannot forge its address by sending its own X-Forwarded-For). X-Real-IP is used
 * when X-Forwarded-For is absent. Anything unparsable falls back to the peer.
 */
export function resolveClientIp(peer: string, headers: ForwardedHeaders, trusted: Cidr[]): string {
  const p = normaliseIp(peer);
  if (!ipInCidrs(p, trusted)) return p;
  const chain = (headers.forwardedFor ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (chain.length > 0) {
    if (!chain.every((x) => parseIp(x))) return p;
    for (let i = chain.length - 1; i >= 0; i--) {
      if (!ipInCidrs(chain[i]!, trusted)) return normaliseIp(chain[i]!);
    }
    return normaliseIp(chain[0]!);
  }
  const real = headers.realIp?.trim();
  if (real && parseIp(real)) return normaliseIp(real);
  return p;
}
