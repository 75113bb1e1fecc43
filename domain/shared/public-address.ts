// Which addresses an outbound request or dial may reach: public unicast only. IPv6 forms that carry an IPv4
// address (mapped, translated, NAT64, 6to4, Teredo) are decoded and judged by the IPv4 rules, so 127.0.0.1 cannot
// be reached as ::ffff:127.0.0.1, 64:ff9b::7f00:1 or 2002:7f00:1::; deprecated ranges are refused outright.
import { cidrContains, parseCidrList, parseIp, type Cidr } from '../auth/cidr.js';

const cidrs = (list: string[]): Cidr[] => parseCidrList(list.join(',')).cidrs;

const NON_PUBLIC_V4 = cidrs([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
]);

const NON_PUBLIC_V6 = cidrs([
  '::/96', // unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d)
  '64:ff9b:1::/48', // local-use NAT64: the translator's network is not knowable from here
  '100::/64', // discard-only
  '2001:2::/48',
  '2001:10::/28',
  '2001:20::/28', // benchmarking, ORCHID (deprecated), ORCHIDv2
  '2001:db8::/32',
  '3fff::/20', // documentation
  '3ffe::/16', // 6bone (returned)
  '5f00::/16', // SRv6 SIDs
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8', // unique-local, link-local, site-local (deprecated), multicast
]);

const MAPPED = cidrs(['::ffff:0:0/96'])[0]!;
const TRANSLATED = cidrs(['::ffff:0:0:0/96'])[0]!;
const NAT64 = cidrs(['64:ff9b::/96'])[0]!;
const SIX_TO_FOUR = cidrs(['2002::/16'])[0]!;
const TEREDO = cidrs(['2001::/32'])[0]!;

/** A 16-byte address holding `a.b.c.d` in its last four bytes (how parseIp stores IPv4). */
function v4(a: number, b: number, c: number, d: number): Uint8Array {
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set([a, b, c, d], 12);
  return out;
}

/** The IPv4 addresses an IPv6 address carries (none for an ordinary IPv6 address). */
function embeddedV4(ip: Uint8Array): Uint8Array[] {
  if (cidrContains(MAPPED, ip) || cidrContains(TRANSLATED, ip) || cidrContains(NAT64, ip)) {
    return [v4(ip[12]!, ip[13]!, ip[14]!, ip[15]!)];
  }
  if (cidrContains(SIX_TO_FOUR, ip)) return [v4(ip[2]!, ip[3]!, ip[4]!, ip[5]!)];
  if (cidrContains(TEREDO, ip)) {
    // Teredo: the server's address in bytes 4..7, the client's (bits inverted) in bytes 12..15.
    return [v4(ip[4]!, ip[5]!, ip[6]!, ip[7]!), v4(ip[12]! ^ 0xff, ip[13]! ^ 0xff, ip[14]! ^ 0xff, ip[15]! ^ 0xff)];
  }
  return [];
}

/** True for a public unicast address; false for anything else, including text that is not an address. */
export function isPublicAddress(text: string): boolean {
  const ip = parseIp(text);
  if (!ip) return false;
  if (cidrContains(MAPPED, ip)) return !NON_PUBLIC_V4.some((c) => cidrContains(c, ip));
  if (NON_PUBLIC_V6.some((c) => cidrContains(c, ip))) return false;
  return embeddedV4(ip).every((inner) => !NON_PUBLIC_V4.some((c) => cidrContains(c, inner)));
}
