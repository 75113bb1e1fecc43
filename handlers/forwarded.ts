// What the client addressed, for the links a response contains. Forwarded headers (X-Forwarded-Host,
// X-Forwarded-Proto, RFC 7239 Forwarded) are believed only when the peer is inside `trustedProxyCIDRs`;
// otherwise the Host header and the connection's own scheme count.
import type { Context } from 'hono';
import { ipInCidrs, parseCidrList, type Cidr } from '../domain/auth/cidr.js';
import { hostWithoutPort } from '../domain/links/address.js';
import type { RequestView } from '../domain/subscription/service.js';

let cached: { text: string; cidrs: Cidr[] } = { text: '', cidrs: [] };
function cidrsOf(text: string): Cidr[] {
  if (cached.text !== text) cached = { text, cidrs: parseCidrList(text).cidrs };
  return cached.cidrs;
}

/** A Host-header-shaped value we are willing to put into links (name or IP, optional port). */
const HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;
const first = (v: string | undefined) => (v ?? '').split(',')[0]!.trim();

/** `for=…;host=…;proto=…` of the first element of an RFC 7239 Forwarded header. */
function parseForwarded(v: string | undefined): { host?: string; proto?: string } {
  const out: { host?: string; proto?: string } = {};
  for (const pair of first(v).split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const k = pair.slice(0, eq).trim().toLowerCase();
    const val = pair
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, '');
    if (k === 'host') out.host = val;
    if (k === 'proto') out.proto = val.toLowerCase();
  }
  return out;
}

export function isTrustedPeer(peer: string, trustedProxyCIDRs: string): boolean {
  return ipInCidrs(peer, cidrsOf(trustedProxyCIDRs));
}

export function requestView(c: Context, peer: string, trustedProxyCIDRs: string): RequestView & { scheme: string } {
  const url = new URL(c.req.url);
  let scheme = url.protocol.replace(/:$/, '');
  let hostHeader = c.req.header('host') || url.host;
  if (peer && isTrustedPeer(peer, trustedProxyCIDRs)) {
    const fwd = parseForwarded(c.req.header('forwarded'));
    const xfHost = first(c.req.header('x-forwarded-host')) || fwd.host;
    const xfProto = first(c.req.header('x-forwarded-proto')).toLowerCase() || fwd.proto;
    if (xfHost && HOST_RE.test(xfHost)) hostHeader = xfHost;
    if (xfProto === 'http' || xfProto === 'https') scheme = xfProto;
  }
  if (!HOST_RE.test(hostHeader)) hostHeader = url.host;
  return { scheme, host: hostWithoutPort(hostHeader), origin: `${scheme}://${hostHeader}` };
}
