import { createServer, type Server } from 'node:net';
import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import {
  baseTag,
  cleanSniffing,
  cleanStream,
  fallbackMasterCapable,
  listenOverlaps,
  parseJsonObject,
  tlsFlowCapable,
  transportsOf,
} from '../../domain/inbounds/rules.js';
import { hostPortProbe } from '../../host-agent/port-probe.js';

describe('dual-encoded JSON fields', () => {
  it.each([
    [{ a: 1 }, { a: 1 }],
    ['{"a":1}', { a: 1 }],
    ['', {}],
    [null, {}],
    [undefined, {}],
    ['null', {}],
  ])('%j → object', (input, out) => expect(parseJsonObject('settings', input)).toEqual(out));
  it.each([
    ['{bad', 'settings: malformed JSON'],
    ['[1]', 'settings: must be a JSON object'],
    ['"s"', 'settings: must be a JSON object'],
    [5, 'settings: must be an object or a JSON-encoded object'],
    [[1], 'settings: must be an object or a JSON-encoded object'],
  ])('%j → message', (input, msg) => expect(parseJsonObject('settings', input)).toBe(msg));
});

describe('transports', () => {
  it.each([
    ['vless', {}, {}, { tcp: true, udp: false }],
    ['vmess', {}, { network: 'kcp' }, { tcp: false, udp: true }],
    ['vmess', {}, { network: 'quic' }, { tcp: false, udp: true }],
    ['hysteria2', {}, {}, { tcp: false, udp: true }],
    ['wireguard', {}, {}, { tcp: false, udp: true }],
    ['shadowsocks', { network: 'tcp,udp' }, {}, { tcp: true, udp: true }],
    ['shadowsocks', { network: 'udp' }, {}, { tcp: false, udp: true }],
    ['dokodemo', { network: 'tcp,udp' }, {}, { tcp: true, udp: true }],
    ['tunnel', { allowedNetwork: 'udp' }, {}, { tcp: false, udp: true }],
    ['socks', { udp: true }, {}, { tcp: true, udp: true }],
    ['mixed', {}, {}, { tcp: true, udp: false }],
  ] as const)('%s %j %j', (protocol, settings, stream, out) => {
    expect(transportsOf(protocol, settings as any, stream as any)).toEqual(out);
  });

  it('listen overlap', () => {
    expect(listenOverlaps('', '127.0.0.1')).toBe(true);
    expect(listenOverlaps('::', '10.0.0.1')).toBe(true);
    expect(listenOverlaps('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(listenOverlaps('127.0.0.1', '127.0.0.2')).toBe(false);
  });
});

describe('flow capability, fallbacks, tags, output', () => {
  it('tlsFlowCapable: VLESS on TCP with tls or reality', () => {
    expect(tlsFlowCapable('vless', { network: 'tcp', security: 'tls' })).toBe(true);
    expect(tlsFlowCapable('vless', { security: 'reality' })).toBe(true);
    expect(tlsFlowCapable('vless', { network: 'ws', security: 'tls' })).toBe(false);
    expect(tlsFlowCapable('trojan', { network: 'tcp', security: 'tls' })).toBe(false);
    expect(fallbackMasterCapable('trojan', { network: 'tcp', security: 'tls' })).toBe(true);
    expect(fallbackMasterCapable('vmess', { network: 'tcp', security: 'tls' })).toBe(false);
  });
  it('tags', () => {
    expect(baseTag(443, null, { tcp: true, udp: false })).toBe('inbound-443');
    expect(baseTag(443, null, { tcp: false, udp: true })).toBe('inbound-443-udp');
    expect(baseTag(443, 2, { tcp: true, udp: true })).toBe('n2-inbound-443');
  });
  it('placeholders are omitted from output', () => {
    expect(cleanStream({ network: 'tcp', externalProxy: [] })).toEqual({ network: 'tcp' });
    expect(cleanStream({ externalProxy: [{ dest: 'a' }] })).toEqual({ externalProxy: [{ dest: 'a' }] });
    expect(cleanSniffing({ enabled: false, destOverride: ['http'] })).toEqual({ enabled: false });
    expect(cleanSniffing({ enabled: true, destOverride: ['http'] })).toEqual({ enabled: true, destOverride: ['http'] });
  });
});

describe('host port probe (real binds on 127.0.0.1)', () => {
  const listen = (): Promise<Server> =>
    new Promise((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => resolve(s));
    });

  it('reports a TCP port in use and a free one as free', async () => {
    const held = await listen();
    const port = (held.address() as { port: number }).port;
    try {
      const busy = await hostPortProbe.probe('127.0.0.1', port, { tcp: true, udp: false });
      expect(busy).toEqual({ free: false, transport: 'tcp', reason: 'address already in use' });
      // the wildcard overlaps the held loopback socket
      expect((await hostPortProbe.probe('', port, { tcp: true, udp: false })).free).toBe(false);
      // UDP on the same number is a different socket
      expect(await hostPortProbe.probe('127.0.0.1', port, { tcp: false, udp: true })).toEqual({ free: true });
    } finally {
      await new Promise((r) => held.close(r));
    }
    expect(await hostPortProbe.probe('127.0.0.1', port, { tcp: true, udp: false })).toEqual({ free: true });
  });

  it('reports a UDP port in use', async () => {
    const sock = createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    const port = sock.address().port;
    try {
      expect(await hostPortProbe.probe('127.0.0.1', port, { tcp: false, udp: true })).toMatchObject({
        free: false,
        transport: 'udp',
      });
    } finally {
      sock.close();
    }
  });

  it('names an unavailable listen address', async () => {
    const r = await hostPortProbe.probe('203.0.113.250', 40000, { tcp: true, udp: false });
    expect(r).toMatchObject({ free: false, reason: 'the listen address is not available on this host' });
  });
});
