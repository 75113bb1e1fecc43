// The private-address rule of outbound requests and dials (domain/shared/public-address.ts), table-driven.
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../domain/shared/public-address.js';

const refused: [string, string][] = [
  ['127.0.0.1', 'IPv4 loopback'],
  ['10.1.2.3', 'IPv4 private'],
  ['169.254.169.254', 'cloud metadata (link-local)'],
  ['100.64.0.1', 'CGNAT'],
  ['0.0.0.0', 'unspecified'],
  ['192.88.99.1', '6to4 relay anycast (deprecated)'],
  ['::', 'IPv6 unspecified'],
  ['::1', 'IPv6 loopback'],
  ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
  ['::7f00:1', 'IPv4-compatible, hex form'],
  ['::8.8.8.8', 'IPv4-compatible, even of a public address (deprecated)'],
  ['::ffff:127.0.0.1', 'IPv4-mapped'],
  ['::ffff:7f00:1', 'IPv4-mapped, hex form'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'IPv4-mapped metadata address, uncompressed'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated (SIIT)'],
  ['::ffff:0:a00:1', 'IPv4-translated, hex form'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
  ['64:ff9b:1::1', 'local-use NAT64'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo with client 127.0.0.1'],
  ['2001:0:a00:1::1', 'Teredo with server 10.0.0.1'],
  ['fec0::1', 'site-local (deprecated)'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['fd00::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001:10::1', 'ORCHID (deprecated)'],
  ['3ffe::1', '6bone (returned)'],
  ['100::1', 'discard-only'],
  ['not-an-address', 'not an address'],
  ['', 'empty'],
];

const allowed: [string, string][] = [
  ['1.1.1.1', 'public IPv4'],
  ['::ffff:1.1.1.1', 'IPv4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
  ['2002:808:808::1', '6to4 of 8.8.8.8'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo with public server and client'],
  ['2606:4700::1111', 'public IPv6'],
];

describe('public-address rule', () => {
  it.each(refused)('refuses %s (%s)', (ip) => expect(isPublicAddress(ip)).toBe(false));
  it.each(allowed)('allows %s (%s)', (ip) => expect(isPublicAddress(ip)).toBe(true));
});
