// The provider integrations' pure parts: WireGuard keys (RFC 7748 vector), the outbounds built from the
// services' answers, and the template edits.
import { describe, expect, it } from 'vitest';
import {
  editOutbounds,
  masked,
  parseWgKey,
  redactOutbound,
  resolveWgKeyPair,
  scrub,
  wgPublicKey,
} from '../../domain/providers/wireguard.js';
import { parseVpnServers, tunnelOutbound, vpnOutbound, wireguardRefusal } from '../../domain/providers/outbounds.js';
import { compareVersions, parseSha256Sum, parseStableTags } from '../../domain/server-tools/releases.js';

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
// RFC 7748 section 6.1, Alice.
const ALICE_PRIV = b64('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
const ALICE_PUB = b64('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');

describe('WireGuard keys', () => {
  it('derives the RFC 7748 public key and accepts base64 or base64url', async () => {
    expect(await wgPublicKey(parseWgKey(ALICE_PRIV)!)).toBe(ALICE_PUB);
    expect(parseWgKey(ALICE_PRIV.replace(/\+/g, '-').replace(/\//g, '_').replace(/=$/, ''))).toEqual(
      parseWgKey(ALICE_PRIV),
    );
    for (const bad of ['', 'short', `${ALICE_PRIV}AA`, '!'.repeat(44)]) expect(parseWgKey(bad)).toBeNull();
  });

  it('generates, derives or checks a pair', async () => {
    const g = await resolveWgKeyPair();
    expect(g.generated).toBe(true);
    expect(await wgPublicKey(parseWgKey(g.privateKey)!)).toBe(g.publicKey);
    expect(g.privateKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(await resolveWgKeyPair(ALICE_PRIV)).toEqual({
      privateKey: ALICE_PRIV,
      publicKey: ALICE_PUB,
      generated: false,
    });
    expect(await resolveWgKeyPair(ALICE_PRIV, ALICE_PUB)).toMatchObject({ publicKey: ALICE_PUB });
    await expect(resolveWgKeyPair(ALICE_PRIV, g.publicKey)).rejects.toThrow('publicKey: does not belong to privateKey');
    await expect(resolveWgKeyPair(undefined, ALICE_PUB)).rejects.toThrow(/^privateKey: required/);
  });
});

describe('outbounds', () => {
  const config = {
    client_id: 'AQID',
    interface: { addresses: { v4: '172.16.0.2', v6: 'fd01::2' } },
    peers: [{ public_key: 'PEER', endpoint: { host: 'engage.example:2408', v4: '1.2.3.4:0' } }],
  };

  it('builds the tunnel outbound with addresses, reserved bytes and the peer', () => {
    expect(tunnelOutbound('SECRET', config)).toEqual({
      tag: 'warp',
      protocol: 'wireguard',
      settings: {
        mtu: 1420,
        secretKey: 'SECRET',
        address: ['172.16.0.2/32', 'fd01::2/128'],
        domainStrategy: 'ForceIP',
        peers: [{ publicKey: 'PEER', allowedIPs: ['0.0.0.0/0', '::/0'], endpoint: 'engage.example:2408' }],
        noKernelTun: false,
        reserved: [1, 2, 3],
      },
    });
    expect(() => tunnelOutbound('S', { ...config, peers: [] })).toThrow(/lacks the peer key/);
  });

  it('reads WireGuard servers with their city, least loaded first, and builds nord-<hostname> outbounds', () => {
    const wg = (key: string) => ({ id: 35, metadata: [{ name: 'public_key', value: key }] });
    const servers = parseVpnServers({
      servers: [
        { id: 1, hostname: 'a1.example', station: '10.0.0.1', load: 50, location_ids: [7], technologies: [wg('K1')] },
        { id: 2, hostname: 'a2.example', station: '2001:db8::1', load: 5, location_ids: [7], technologies: [wg('K2')] },
        { id: 3, hostname: 'a3.example', station: '10.0.0.3', load: 1, technologies: [{ id: 3, metadata: [] }] },
        { id: 4, hostname: 'bad host', station: '10.0.0.4', load: 1, technologies: [wg('K4')] },
      ],
      locations: [{ id: 7, country: { name: 'Testland', city: { name: 'Testville' } } }],
    });
    expect(servers.map((s) => [s.id, s.endpoint, s.city])).toEqual([
      [2, '[2001:db8::1]:51820', 'Testville'],
      [1, '10.0.0.1:51820', 'Testville'],
    ]);
    expect(vpnOutbound('KEY', servers[1]!)).toMatchObject({
      tag: 'nord-a1.example',
      settings: {
        secretKey: 'KEY',
        address: ['10.5.0.2/32'],
        peers: [{ publicKey: 'K1', endpoint: '10.0.0.1:51820' }],
      },
    });
    expect(() => parseVpnServers({})).toThrow(/no servers array/);
  });

  it('edits the template: put replaces in place, remove takes the routing rules along, no change is null', () => {
    const tpl = {
      outbounds: [
        { tag: 'direct', protocol: 'freedom' },
        { tag: 'nord-x', protocol: 'wireguard', settings: { secretKey: 'A' } },
      ],
      routing: {
        rules: [
          { outboundTag: 'nord-x', ip: ['1.1.1.1'] },
          { outboundTag: 'direct', ip: ['2.2.2.2'] },
        ],
      },
    };
    const put = editOutbounds(tpl, { put: [{ tag: 'nord-x', protocol: 'wireguard', settings: { secretKey: 'B' } }] })!;
    expect((put.template.outbounds as any[]).map((o) => o.tag)).toEqual(['direct', 'nord-x']);
    expect((put.template.outbounds as any[])[1].settings.secretKey).toBe('B');
    expect(put.rulesRemoved).toBe(0);
    const rm = editOutbounds(tpl, { remove: (t) => t.startsWith('nord-') })!;
    expect(rm.removed).toEqual(['nord-x']);
    expect(rm.rulesRemoved).toBe(1);
    expect((rm.template.routing as any).rules).toEqual([{ outboundTag: 'direct', ip: ['2.2.2.2'] }]);
    expect(editOutbounds(tpl, { remove: (t) => t === 'missing' })).toBeNull();
    expect((tpl.outbounds[1] as any).settings.secretKey).toBe('A'); // the input is not mutated
  });

  it('hides secrets in answers and texts', () => {
    expect(redactOutbound({ tag: 'w', settings: { secretKey: 'S3CRET' } })).toEqual({
      tag: 'w',
      settings: { secretKey: '(hidden: stored in the core template)' },
    });
    expect(masked('abcdefgh-1234')).toBe('****1234');
    expect(scrub('token tok-123456 refused for tok-123456', ['tok-123456', undefined, 'ab'])).toBe(
      'token *** refused for ***',
    );
    expect(wireguardRefusal('xray', '25.1.1')).toBeNull();
    expect(wireguardRefusal('v2ray', '4.34.0')).toMatch(/Xray core; the running core is V2Ray 4\.34\.0/);
  });
});

describe('panel release feed helpers', () => {
  it('compares versions, reads sha256sum lines, keeps stable tags', () => {
    expect(compareVersions('v0.10.0', '0.9.9')).toBeGreaterThan(0);
    expect(compareVersions('1.2.3', 'v1.2.3')).toBe(0);
    expect(compareVersions('1.2.3', '1.3.0')).toBeLessThan(0);
    expect(parseSha256Sum(`${'A'.repeat(64)}  x.tar.gz\n`)).toBe('a'.repeat(64));
    expect(() => parseSha256Sum('nope')).toThrow();
    expect(
      parseStableTags([
        { tag_name: 'v1.0.0' },
        { tag_name: 'v2.0.0', prerelease: true },
        { tag_name: 'v1.1.0' },
        { tag_name: 'v3.0.0', draft: true },
      ]),
    ).toEqual(['v1.1.0', 'v1.0.0']);
  });
});
