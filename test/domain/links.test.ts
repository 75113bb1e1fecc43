import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  linksFor,
  profilesFor,
  advertisedHost,
  configuredPublicHost,
  isRoutableHost,
  hostWithoutPort,
  type LinkClient,
  type LinkInbound,
} from '../../domain/links/index.js';
import { renderJson, clientConfig } from '../../domain/subscription/json.js';
import { renderClash } from '../../domain/subscription/clash.js';
import { renderPage } from '../../domain/subscription/html.js';
import { summarise, userinfoHeader } from '../../domain/subscription/summary.js';
import type { SubscriptionClient } from '../../domain/ports/subscription-repo.js';
import type { ClientRecord } from '../../domain/clients/model.js';

const UUID = '3b7a2f0e-9c1d-4c55-8d0e-0a1b2c3d4e5f';
const client = (over: Partial<LinkClient> = {}): LinkClient => ({
  email: 'alice@example',
  uuid: UUID,
  password: 'p@ss/w+rd=',
  auth: 'a@u/t+h=',
  flow: '',
  security: 'auto',
  method: '',
  ...over,
});
const inbound = (over: Partial<LinkInbound>): LinkInbound => ({
  id: 1,
  protocol: 'vless',
  listen: '',
  port: 443,
  remark: 'DE',
  settings: {},
  streamSettings: { network: 'tcp', security: 'none' },
  ...over,
});

const fromB64 = (s: string) =>
  new TextDecoder().decode(
    Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)), (ch) =>
      ch.charCodeAt(0),
    ),
  );
const vmessJson = (link: string) => {
  expect(link.startsWith('vmess://')).toBe(true);
  return JSON.parse(fromB64(link.slice(8)));
};
/** Parses a URL-style link into its parts, decoding what the link encoded. */
function parts(link: string) {
  const u = new URL(link);
  return {
    scheme: u.protocol.slice(0, -1),
    user: decodeURIComponent(u.username),
    host: u.hostname,
    port: Number(u.port),
    q: Object.fromEntries(u.searchParams.entries()),
    name: decodeURIComponent(u.hash.slice(1)),
  };
}

const tlsStream = (network: string, extra: Record<string, unknown> = {}) => ({
  network,
  security: 'tls',
  tlsSettings: {
    serverName: 'cdn.example.com',
    alpn: ['h2', 'http/1.1'],
    settings: { fingerprint: 'chrome', allowInsecure: false },
  },
  ...extra,
});
const realityStream = {
  network: 'tcp',
  security: 'reality',
  realitySettings: {
    show: false,
    dest: 'www.microsoft.com:443',
    serverNames: ['www.microsoft.com', 'microsoft.com'],
    shortIds: ['6ba85179e30d4fc2', 'ab'],
    privateKey: 'priv',
    settings: { publicKey: 'PUBKEYxyz', fingerprint: 'firefox', spiderX: '/spider' },
  },
};

describe('address resolution', () => {
  it('uses a routable listen, else the configured public host, else the request host', () => {
    expect(advertisedHost('198.51.100.4', 'sub.example.com', 'req.example.com')).toBe('198.51.100.4');
    expect(advertisedHost('0.0.0.0', 'sub.example.com', 'req.example.com:2096')).toBe('sub.example.com');
    expect(advertisedHost('', '', 'req.example.com:2096')).toBe('req.example.com');
    expect(advertisedHost('127.0.0.1', '', '[2001:db8::5]:2096')).toBe('2001:db8::5');
    expect(advertisedHost('::', '', 'h')).toBe('h');
    expect(advertisedHost('[2001:db8::1]', '', 'h')).toBe('2001:db8::1');
  });
  it('knows what is routable', () => {
    for (const h of ['', '0.0.0.0', '127.0.0.1', '127.8.9.1', '::', '::1', 'localhost', '@socket', '/run/x.sock'])
      expect(isRoutableHost(h), h).toBe(false);
    for (const h of ['10.0.0.1', '2001:db8::1', 'proxy.example.com']) expect(isRoutableHost(h), h).toBe(true);
  });
  it('takes the public host from subURI first, then subDomain', () => {
    expect(configuredPublicHost('https://sub.example.com:2096/sub/', 'other.example')).toBe('sub.example.com');
    expect(configuredPublicHost('', 'other.example')).toBe('other.example');
    expect(configuredPublicHost('https://[2001:db8::9]/s/', '')).toBe('2001:db8::9');
    expect(hostWithoutPort('a.b:443')).toBe('a.b');
    expect(hostWithoutPort('[::1]:80')).toBe('::1');
  });
});

describe('vmess links', () => {
  it('tcp without header', () => {
    const [link, ...rest] = linksFor(
      inbound({ protocol: 'vmess', port: 10001 }),
      client({ security: 'aes-128-gcm' }),
      'vpn.example.com',
    );
    expect(rest).toEqual([]);
    const o = vmessJson(link!);
    expect(o).toMatchObject({
      v: '2',
      ps: 'DE-alice@example',
      add: 'vpn.example.com',
      port: 10001,
      id: UUID,
      scy: 'aes-128-gcm',
      net: 'tcp',
      type: 'none',
      host: '',
      path: '',
      tls: 'none',
      sni: '',
      alpn: '',
      fp: '',
    });
  });
  it('tcp with http header', () => {
    const stream = {
      network: 'tcp',
      security: 'none',
      tcpSettings: {
        header: { type: 'http', request: { path: ['/a', '/b'], headers: { Host: ['h1.example', 'h2.example'] } } },
      },
    };
    const o = vmessJson(linksFor(inbound({ protocol: 'vmess', streamSettings: stream }), client(), 'x')[0]!);
    expect(o).toMatchObject({ net: 'tcp', type: 'http', path: '/a', host: 'h1.example' });
  });
  it('ws with tls sni/alpn/fp', () => {
    const o = vmessJson(
      linksFor(
        inbound({
          protocol: 'vmess',
          streamSettings: tlsStream('ws', { wsSettings: { path: '/ws?ed=2048', host: 'ws.example' } }),
        }),
        client(),
        'x',
      )[0]!,
    );
    expect(o).toMatchObject({
      net: 'ws',
      path: '/ws?ed=2048',
      host: 'ws.example',
      tls: 'tls',
      sni: 'cdn.example.com',
      alpn: 'h2,http/1.1',
      fp: 'chrome',
    });
  });
  it('grpc, httpupgrade, xhttp, kcp', () => {
    const grpc = vmessJson(
      linksFor(
        inbound({
          protocol: 'vmess',
          streamSettings: { network: 'grpc', grpcSettings: { serviceName: 'svc', multiMode: true } },
        }),
        client(),
        'x',
      )[0]!,
    );
    expect(grpc).toMatchObject({ net: 'grpc', path: 'svc', type: 'multi' });
    const hu = vmessJson(
      linksFor(
        inbound({
          protocol: 'vmess',
          streamSettings: { network: 'httpupgrade', httpupgradeSettings: { path: '/up', host: 'up.example' } },
        }),
        client(),
        'x',
      )[0]!,
    );
    expect(hu).toMatchObject({ net: 'httpupgrade', path: '/up', host: 'up.example' });
    const xh = vmessJson(
      linksFor(
        inbound({
          protocol: 'vmess',
          streamSettings: { network: 'xhttp', xhttpSettings: { path: '/x', host: 'x.example', mode: 'packet-up' } },
        }),
        client(),
        'x',
      )[0]!,
    );
    expect(xh).toMatchObject({ net: 'xhttp', path: '/x', host: 'x.example', type: 'packet-up', mode: 'packet-up' });
    const kcp = vmessJson(
      linksFor(
        inbound({
          protocol: 'vmess',
          streamSettings: { network: 'kcp', kcpSettings: { header: { type: 'wechat-video' }, seed: 'sd' } },
        }),
        client(),
        'x',
      )[0]!,
    );
    expect(kcp).toMatchObject({ net: 'kcp', type: 'wechat-video', path: 'sd' });
  });
  it('keeps unicode remarks and IPv6 hosts intact', () => {
    const o = vmessJson(
      linksFor(inbound({ protocol: 'vmess', remark: '🇩🇪 Берлин' }), client({ email: 'ü@x' }), '2001:db8::1')[0]!,
    );
    expect(o.ps).toBe('🇩🇪 Берлин-ü@x');
    expect(o.add).toBe('2001:db8::1');
  });
});

describe('vless links', () => {
  it('reality with flow, pbk, sid, sni, spx, fp', () => {
    const p = parts(
      linksFor(inbound({ streamSettings: realityStream }), client({ flow: 'xtls-rprx-vision' }), '203.0.113.9')[0]!,
    );
    expect(p).toMatchObject({ scheme: 'vless', user: UUID, host: '203.0.113.9', port: 443, name: 'DE-alice@example' });
    expect(p.q).toEqual({
      type: 'tcp',
      encryption: 'none',
      security: 'reality',
      flow: 'xtls-rprx-vision',
      sni: 'www.microsoft.com',
      fp: 'firefox',
      pbk: 'PUBKEYxyz',
      sid: '6ba85179e30d4fc2',
      spx: '/spider',
    });
  });
  it('plain tcp: security=none and no flow', () => {
    const p = parts(linksFor(inbound({}), client({ flow: 'xtls-rprx-vision' }), 'h.example')[0]!);
    expect(p.q).toEqual({ type: 'tcp', encryption: 'none', security: 'none' });
  });
  it('ws + tls: no flow, transport and tls parameters', () => {
    const p = parts(
      linksFor(
        inbound({ streamSettings: tlsStream('ws', { wsSettings: { path: '/p a', headers: { Host: 'w.example' } } }) }),
        client({ flow: 'xtls-rprx-vision' }),
        'h',
      )[0]!,
    );
    expect(p.q).toEqual({
      type: 'ws',
      encryption: 'none',
      path: '/p a',
      host: 'w.example',
      security: 'tls',
      sni: 'cdn.example.com',
      alpn: 'h2,http/1.1',
      fp: 'chrome',
    });
  });
  it('grpc multi, xhttp extra, kcp seed, tcp http header', () => {
    expect(
      parts(
        linksFor(
          inbound({
            streamSettings: {
              network: 'grpc',
              grpcSettings: { serviceName: 'g', authority: 'a.example', multiMode: true },
            },
          }),
          client(),
          'h',
        )[0]!,
      ).q,
    ).toMatchObject({ type: 'grpc', serviceName: 'g', authority: 'a.example', mode: 'multi' });
    const xq = parts(
      linksFor(
        inbound({
          streamSettings: {
            network: 'xhttp',
            xhttpSettings: { path: '/x', mode: 'stream-one', xPaddingBytes: '100-1000', noSSEHeader: true },
          },
        }),
        client(),
        'h',
      )[0]!,
    ).q;
    expect(xq).toMatchObject({ type: 'xhttp', path: '/x', mode: 'stream-one' });
    expect(JSON.parse(xq.extra!)).toEqual({ xPaddingBytes: '100-1000' });
    expect(
      parts(
        linksFor(
          inbound({ streamSettings: { network: 'kcp', kcpSettings: { header: { type: 'srtp' }, seed: 's1' } } }),
          client(),
          'h',
        )[0]!,
      ).q,
    ).toMatchObject({ type: 'kcp', headerType: 'srtp', seed: 's1' });
    expect(
      parts(
        linksFor(
          inbound({
            streamSettings: {
              network: 'tcp',
              tcpSettings: { header: { type: 'http', request: { path: ['/h'], headers: { host: 'hh' } } } },
            },
          }),
          client(),
          'h',
        )[0]!,
      ).q,
    ).toMatchObject({ type: 'tcp', headerType: 'http', path: '/h', host: 'hh' });
  });
  it('brackets IPv6 hosts', () => {
    const link = linksFor(inbound({}), client(), advertisedHost('2001:db8::7', '', 'ignored'))[0]!;
    expect(link).toContain('@[2001:db8::7]:443?');
    expect(parts(link).host).toBe('[2001:db8::7]');
  });
});

describe('trojan links', () => {
  it('percent-encodes passwords with @ / + =', () => {
    const link = linksFor(inbound({ protocol: 'trojan', streamSettings: tlsStream('tcp') }), client(), 'h.example')[0]!;
    expect(link.startsWith('trojan://p%40ss%2Fw%2Brd%3D@h.example:443?')).toBe(true);
    const p = parts(link);
    expect(p.user).toBe('p@ss/w+rd=');
    expect(p.q).toEqual({ type: 'tcp', security: 'tls', sni: 'cdn.example.com', alpn: 'h2,http/1.1', fp: 'chrome' });
  });
  it('grpc over reality', () => {
    const p = parts(
      linksFor(
        inbound({
          protocol: 'trojan',
          streamSettings: { ...realityStream, network: 'grpc', grpcSettings: { serviceName: 't' } },
        }),
        client({ flow: 'xtls-rprx-vision' }),
        'h',
      )[0]!,
    );
    expect(p.q).toMatchObject({ type: 'grpc', serviceName: 't', security: 'reality', pbk: 'PUBKEYxyz' });
    expect(p.q.flow).toBeUndefined();
  });
});

describe('shadowsocks links (SIP002)', () => {
  it('legacy cipher: base64url(method:password) with the client method', () => {
    const link = linksFor(
      inbound({ protocol: 'shadowsocks', port: 8388, settings: { method: 'aes-256-gcm' } }),
      client({ method: 'chacha20-ietf-poly1305' }),
      'h.example',
    )[0]!;
    const m = /^ss:\/\/([A-Za-z0-9_-]+)@h\.example:8388\?type=tcp#(.*)$/.exec(link)!;
    expect(m).not.toBeNull();
    expect(fromB64(m[1]!)).toBe('chacha20-ietf-poly1305:p@ss/w+rd=');
    expect(decodeURIComponent(m[2]!)).toBe('DE-alice@example');
  });
  it('legacy cipher falls back to the inbound method', () => {
    const link = linksFor(inbound({ protocol: 'shadowsocks', settings: { method: 'aes-128-gcm' } }), client(), 'h')[0]!;
    expect(fromB64(/^ss:\/\/([^@]+)@/.exec(link)![1]!)).toBe('aes-128-gcm:p@ss/w+rd=');
  });
  it('2022 cipher: method:serverKey:userKey', () => {
    const link = linksFor(
      inbound({
        protocol: 'shadowsocks',
        settings: { method: '2022-blake3-aes-128-gcm', password: 'U2VydmVyS2V5MTIzNDU2Nw==' },
      }),
      client({ password: 'VXNlcktleTEyMzQ1Njc4OQ==' }),
      'h',
    )[0]!;
    expect(fromB64(/^ss:\/\/([^@]+)@/.exec(link)![1]!)).toBe(
      '2022-blake3-aes-128-gcm:U2VydmVyS2V5MTIzNDU2Nw==:VXNlcktleTEyMzQ1Njc4OQ==',
    );
  });
});

describe('hysteria links', () => {
  const hyStream = {
    network: 'hysteria',
    security: 'tls',
    tlsSettings: { serverName: 'hy.example', alpn: ['h3'], settings: { allowInsecure: true } },
  };
  it('hysteria2 as hy2:// with auth, sni, alpn, insecure, obfs', () => {
    const p = parts(
      linksFor(
        inbound({
          protocol: 'hysteria2',
          port: 8443,
          streamSettings: hyStream,
          settings: { obfs: { type: 'salamander', salamander: { password: 'ob' } } },
        }),
        client(),
        'h.example',
      )[0]!,
    );
    expect(p).toMatchObject({
      scheme: 'hy2',
      user: 'a@u/t+h=',
      host: 'h.example',
      port: 8443,
      name: 'DE-alice@example',
    });
    expect(p.q).toEqual({
      security: 'tls',
      sni: 'hy.example',
      alpn: 'h3',
      insecure: '1',
      obfs: 'salamander',
      'obfs-password': 'ob',
    });
  });
  it('hysteria (v1) as hysteria:// with auth and peer', () => {
    const p = parts(linksFor(inbound({ protocol: 'hysteria', streamSettings: hyStream }), client(), 'h')[0]!);
    expect(p.scheme).toBe('hysteria');
    expect(p.user).toBe('a@u/t+h=');
    expect(p.q).toMatchObject({
      protocol: 'udp',
      auth: 'a@u/t+h=',
      peer: 'hy.example',
      sni: 'hy.example',
      alpn: 'h3',
      insecure: '1',
    });
  });
  it('hysteria with settings.version 2 is a hy2:// link', () => {
    expect(
      linksFor(
        inbound({ protocol: 'hysteria', settings: { version: 2 }, streamSettings: hyStream }),
        client(),
        'h',
      )[0]!.startsWith('hy2://'),
    ).toBe(true);
  });
});

describe('remarks and external proxies', () => {
  it('percent-encodes unicode remarks and survives a round trip', () => {
    const link = linksFor(inbound({ remark: 'Zürich #1 / 東京' }), client({ email: 'bob+1@x' }), 'h')[0]!;
    expect(link.split('#')[1]).not.toMatch(/[ #/ü東]/);
    expect(parts(link).name).toBe('Zürich #1 / 東京-bob+1@x');
  });
  it('leaves empty remark parts out', () => {
    expect(parts(linksFor(inbound({ remark: '' }), client(), 'h')[0]!).name).toBe('alice@example');
  });
  it('expands externalProxy into one link per entry with its host, port, remark and TLS override', () => {
    const stream = tlsStream('ws', {
      wsSettings: { path: '/ws' },
      externalProxy: [
        { forceTls: 'same', dest: 'cdn1.example', port: 443, remark: 'CDN1' },
        { forceTls: 'none', dest: '2001:db8::2', port: 80, remark: 'plain' },
        {
          forceTls: 'tls',
          dest: 'cdn3.example',
          port: 8443,
          remark: '',
          sni: 'override.example',
          fingerprint: 'safari',
          alpn: 'h2',
        },
      ],
    });
    const links = linksFor(inbound({ protocol: 'vless', streamSettings: stream }), client(), 'ignored.example');
    expect(links).toHaveLength(3);
    const [a, b, c] = links.map(parts);
    expect(a).toMatchObject({ host: 'cdn1.example', port: 443, name: 'DE-alice@example-CDN1' });
    expect(a!.q).toMatchObject({ security: 'tls', sni: 'cdn.example.com', fp: 'chrome' });
    expect(b).toMatchObject({ host: '[2001:db8::2]', port: 80, name: 'DE-alice@example-plain' });
    expect(b!.q.security).toBe('none');
    expect(b!.q.sni).toBeUndefined();
    expect(c).toMatchObject({ host: 'cdn3.example', port: 8443, name: 'DE-alice@example' });
    expect(c!.q).toMatchObject({ security: 'tls', sni: 'override.example', fp: 'safari', alpn: 'h2' });
    const vm = linksFor(inbound({ protocol: 'vmess', streamSettings: stream }), client(), 'x').map(vmessJson);
    expect(vm.map((o) => [o.add, o.port, o.tls, o.ps])).toEqual([
      ['cdn1.example', 443, 'tls', 'DE-alice@example-CDN1'],
      ['2001:db8::2', 80, 'none', 'DE-alice@example-plain'],
      ['cdn3.example', 8443, 'tls', 'DE-alice@example'],
    ]);
  });
  it('protocols without a URL form contribute nothing', () => {
    for (const protocol of ['socks', 'http', 'mixed', 'wireguard', 'dokodemo', 'tunnel'] as const)
      expect(linksFor(inbound({ protocol }), client(), 'h')).toEqual([]);
  });
});

describe('JSON subscription configs', () => {
  it('is a complete client config per link with classic outbound forms', () => {
    const ib = inbound({
      protocol: 'vmess',
      port: 1234,
      streamSettings: tlsStream('ws', { wsSettings: { path: '/w', host: 'w.example' } }),
    });
    const configs = JSON.parse(renderJson(profilesFor(ib, client(), 'srv.example')));
    expect(configs).toHaveLength(1);
    const cfg = configs[0];
    expect(cfg.remarks).toBe('DE-alice@example');
    expect(cfg.inbounds.map((i: any) => [i.protocol, i.listen, i.port])).toEqual([
      ['socks', '127.0.0.1', 10808],
      ['http', '127.0.0.1', 10809],
    ]);
    expect(cfg.outbounds.map((o: any) => o.tag)).toEqual(['proxy', 'direct', 'block']);
    expect(cfg.outbounds[0]).toEqual({
      tag: 'proxy',
      protocol: 'vmess',
      settings: { vnext: [{ address: 'srv.example', port: 1234, users: [{ id: UUID, security: 'auto', level: 8 }] }] },
      streamSettings: {
        network: 'ws',
        wsSettings: { path: '/w', host: 'w.example', headers: { Host: 'w.example' } },
        security: 'tls',
        tlsSettings: { serverName: 'cdn.example.com', alpn: ['h2', 'http/1.1'], fingerprint: 'chrome' },
      },
    });
    expect(cfg.routing.rules).toEqual([{ type: 'field', network: 'tcp,udp', outboundTag: 'proxy' }]);
  });
  it('builds vless, trojan, shadowsocks and hysteria outbounds', () => {
    const vl = clientConfig(
      profilesFor(inbound({ streamSettings: realityStream }), client({ flow: 'xtls-rprx-vision' }), 'h')[0]!,
    ) as any;
    expect(vl.outbounds[0].settings.vnext[0].users[0]).toEqual({
      id: UUID,
      encryption: 'none',
      flow: 'xtls-rprx-vision',
      level: 8,
    });
    expect(vl.outbounds[0].streamSettings.realitySettings).toMatchObject({
      serverName: 'www.microsoft.com',
      publicKey: 'PUBKEYxyz',
      shortId: '6ba85179e30d4fc2',
      fingerprint: 'firefox',
      spiderX: '/spider',
    });
    const tr = clientConfig(profilesFor(inbound({ protocol: 'trojan' }), client(), 'h')[0]!) as any;
    expect(tr.outbounds[0].settings.servers[0]).toEqual({ address: 'h', port: 443, password: 'p@ss/w+rd=', level: 8 });
    const ss = clientConfig(
      profilesFor(
        inbound({ protocol: 'shadowsocks', settings: { method: '2022-blake3-aes-128-gcm', password: 'SK' } }),
        client({ password: 'UK' }),
        'h',
      )[0]!,
    ) as any;
    expect(ss.outbounds[0].settings.servers[0]).toEqual({
      address: 'h',
      port: 443,
      method: '2022-blake3-aes-128-gcm',
      password: 'SK:UK',
      level: 8,
    });
    const hy = clientConfig(
      profilesFor(
        inbound({ protocol: 'hysteria2', streamSettings: { tlsSettings: { serverName: 's' } } }),
        client(),
        'h',
      )[0]!,
    ) as any;
    expect(hy.outbounds[0]).toMatchObject({
      protocol: 'hysteria',
      settings: { version: 2, address: 'h', port: 443 },
      streamSettings: { network: 'hysteria', hysteriaSettings: { version: 2, auth: 'a@u/t+h=' }, security: 'tls' },
    });
  });
});

describe('Clash (Mihomo) YAML', () => {
  const inbounds: LinkInbound[] = [
    inbound({
      id: 1,
      protocol: 'vmess',
      port: 1001,
      streamSettings: tlsStream('ws', { wsSettings: { path: '/v', host: 'v.example' } }),
    }),
    inbound({ id: 2, protocol: 'vless', port: 1002, streamSettings: realityStream }),
    inbound({
      id: 3,
      protocol: 'trojan',
      port: 1003,
      streamSettings: tlsStream('grpc', { grpcSettings: { serviceName: 'tg' } }),
    }),
    inbound({ id: 4, protocol: 'shadowsocks', port: 1004, settings: { method: 'aes-256-gcm' } }),
    inbound({
      id: 5,
      protocol: 'hysteria2',
      port: 1005,
      streamSettings: { tlsSettings: { serverName: 'hy.example', alpn: ['h3'] } },
    }),
    inbound({
      id: 6,
      protocol: 'vless',
      port: 1006,
      streamSettings: { network: 'httpupgrade', httpupgradeSettings: { path: '/hu' } },
    }),
    inbound({ id: 7, protocol: 'vless', port: 1007, streamSettings: { network: 'kcp' } }),
  ];
  const profiles = inbounds.flatMap((ib) =>
    profilesFor(ib, client({ flow: 'xtls-rprx-vision', method: 'aes-256-gcm' }), 'srv.example'),
  );
  const doc = parseYaml(renderClash(profiles));

  it('has the proxies Mihomo can run, field by field', () => {
    const [vm, vl, tr, ss, hy, hu, ...rest] = doc.proxies;
    expect(rest).toEqual([]); // kcp is left out
    expect(vm).toEqual({
      name: 'DE-alice@example',
      type: 'vmess',
      server: 'srv.example',
      port: 1001,
      udp: true,
      uuid: UUID,
      alterId: 0,
      cipher: 'auto',
      network: 'ws',
      'ws-opts': { path: '/v', headers: { Host: 'v.example' } },
      tls: true,
      servername: 'cdn.example.com',
      'client-fingerprint': 'chrome',
      alpn: ['h2', 'http/1.1'],
    });
    expect(vl).toEqual({
      name: 'DE-alice@example-2',
      type: 'vless',
      server: 'srv.example',
      port: 1002,
      udp: true,
      uuid: UUID,
      flow: 'xtls-rprx-vision',
      network: 'tcp',
      tls: true,
      servername: 'www.microsoft.com',
      'client-fingerprint': 'firefox',
      'reality-opts': { 'public-key': 'PUBKEYxyz', 'short-id': '6ba85179e30d4fc2' },
    });
    expect(tr).toEqual({
      name: 'DE-alice@example-3',
      type: 'trojan',
      server: 'srv.example',
      port: 1003,
      udp: true,
      password: 'p@ss/w+rd=',
      network: 'grpc',
      'grpc-opts': { 'grpc-service-name': 'tg' },
      sni: 'cdn.example.com',
      'client-fingerprint': 'chrome',
      alpn: ['h2', 'http/1.1'],
    });
    expect(ss).toEqual({
      name: 'DE-alice@example-4',
      type: 'ss',
      server: 'srv.example',
      port: 1004,
      udp: true,
      cipher: 'aes-256-gcm',
      password: 'p@ss/w+rd=',
      network: 'tcp',
    });
    expect(hy).toEqual({
      name: 'DE-alice@example-5',
      type: 'hysteria2',
      server: 'srv.example',
      port: 1005,
      udp: true,
      password: 'a@u/t+h=',
      sni: 'hy.example',
      alpn: ['h3'],
    });
    expect(hu).toMatchObject({
      type: 'vless',
      network: 'ws',
      'ws-opts': { path: '/hu', 'v2ray-http-upgrade': true },
      tls: false,
    });
  });
  it('has unique names, a selector group and rules', () => {
    const names = doc.proxies.map((p: any) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(doc['proxy-groups']).toEqual([{ name: 'PROXY', type: 'select', proxies: [...names, 'DIRECT'] }]);
    expect(doc.rules).toEqual(['MATCH,PROXY']);
  });
  it('quotes awkward names so YAML keeps them as strings', () => {
    const odd = parseYaml(
      renderClash(profilesFor(inbound({ remark: '- yes: [no] #', protocol: 'vmess' }), client({ email: 'true' }), 'h')),
    );
    expect(odd.proxies[0].name).toBe('- yes: [no] #-true');
  });
});

const rec = (
  email: string,
  over: Partial<ClientRecord>,
  traffic: Partial<SubscriptionClient['traffic']> = {},
): SubscriptionClient => ({
  client: {
    id: 1,
    email,
    subId: 's',
    uuid: UUID,
    password: '',
    auth: '',
    flow: '',
    security: '',
    method: '',
    totalGB: 0,
    expiryTime: 0,
    enable: true,
    limitIp: 0,
    tgId: 0,
    comment: '',
    group: '',
    reverse: null,
    reset: 0,
    createdAt: 0,
    updatedAt: 0,
    ...over,
  },
  traffic: { up: 0, down: 0, enable: true, lastOnline: 0, ...traffic },
  inboundIds: [1],
});

describe('subscription summary and headers', () => {
  const now = Date.UTC(2026, 0, 1);
  it('sums counters and quotas; total=0 when any client is unlimited; expire is the earliest in seconds', () => {
    const a = rec('a', { totalGB: 1000, expiryTime: now + 86_400_000 }, { up: 10, down: 20 });
    const b = rec('b', { totalGB: 500, expiryTime: now + 3_600_000 }, { up: 1, down: 2 });
    expect(userinfoHeader(summarise([a, b], now))).toBe(
      `upload=11; download=22; total=1500; expire=${(now + 3_600_000) / 1000}`,
    );
    const c = rec('c', { totalGB: 0 });
    expect(userinfoHeader(summarise([a, c], now))).toBe(
      `upload=10; download=20; total=0; expire=${(now + 86_400_000) / 1000}`,
    );
    expect(userinfoHeader(summarise([c], now))).toBe('upload=0; download=0; total=0; expire=0');
  });
  it('a delayed start expires that long after now', () => {
    expect(summarise([rec('a', { expiryTime: -86_400_000 * 7 })], now).expire).toBe((now + 86_400_000 * 7) / 1000);
  });
});

describe('HTML page', () => {
  it('escapes record values and renders one QR per link', () => {
    const summary = summarise(
      [rec('<script>alert(1)</script>', { totalGB: 2048 }, { up: 512, down: 512 })],
      Date.UTC(2026, 0, 1),
    );
    const html = renderPage({
      title: '<b>"x"</b>',
      summary,
      nowMs: Date.UTC(2026, 0, 1),
      timeZone: 'Not/AZone',
      onlineWindowSec: 120,
      links: [
        { name: '<img src=x onerror=alert(1)>', url: 'vless://a@b:1?x=1&y=2#<n>' },
        { name: 'two', url: 'trojan://p@h:2' },
      ],
      urls: [{ name: 'Subscription', url: 'https://h/sub/"><script>' }],
      supportUrl: '',
      announce: '<i>hi</i>',
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>"x"</b>');
    expect(html).toContain('&lt;b&gt;&quot;x&quot;&lt;/b&gt;');
    expect(html.match(/<svg class="qr"/g)).toHaveLength(2);
    expect(html).toContain('1.00 KB'); // used
    expect(html).toContain('<script>document.');
    expect(html).not.toMatch(/(src|href)="https?:/);
  });
});
