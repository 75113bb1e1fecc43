import { describe, expect, it } from 'vitest';
import { buildCoreConfig } from '../../domain/core/builder.js';
import { clientEntry, coreUser, flowEligible } from '../../domain/core/clients.js';
import { defaultTemplate, ensureApi, parseTemplate } from '../../domain/core/template.js';
import { userFromEntry } from '../../domain/core/sync.js';
import type { CoreClient, CoreFallback, CoreInbound, CoreViewData } from '../../domain/ports/core-view.js';
import type { Protocol } from '../../domain/inbounds/model.js';

const API = 62789;
const ib = (id: number, protocol: Protocol, extra: Partial<CoreInbound> = {}): CoreInbound => ({
  id,
  tag: `in-${id}`,
  protocol,
  enable: true,
  listen: '',
  port: 10000 + id,
  settings: {},
  streamSettings: { network: 'tcp', security: 'none' },
  sniffing: {},
  nodeId: null,
  ...extra,
});
const cl = (email: string, extra: Partial<CoreClient> = {}): CoreClient => ({
  email,
  uuid: `uuid-${email}`,
  password: `pw-${email}`,
  auth: `auth-${email}`,
  flow: '',
  security: '',
  method: '',
  reverse: null,
  enable: true,
  ...extra,
});
const view = (
  inbounds: CoreInbound[],
  clients: Record<number, CoreClient[]> = {},
  fallbacks: CoreFallback[] = [],
): CoreViewData => ({
  inbounds,
  clients: new Map(Object.entries(clients).map(([k, v]) => [Number(k), v])),
  fallbacks,
});
const build = (v: CoreViewData, flavour: 'xray' | 'v2ray' = 'xray', tpl = defaultTemplate(API)) =>
  buildCoreConfig(tpl, v, { flavour, apiPort: API });
const inboundOf = (cfg: any, tag: string) => cfg.inbounds.find((i: any) => i.tag === tag);

describe('client entries per protocol (spec: core config emission)', () => {
  const tls = { settings: {}, streamSettings: { network: 'tcp', security: 'tls' } };
  const plain = { settings: {}, streamSettings: { network: 'ws', security: 'none' } };
  it.each([
    [
      'vless',
      tls,
      cl('a', { flow: 'xtls-rprx-vision', reverse: { tag: 'r1' } }),
      { id: 'uuid-a', flow: 'xtls-rprx-vision', reverse: { tag: 'r1' }, email: 'a' },
    ],
    ['vless', plain, cl('a', { flow: 'xtls-rprx-vision' }), { id: 'uuid-a', email: 'a' }],
    ['vmess', plain, cl('a'), { id: 'uuid-a', security: 'auto', email: 'a' }],
    ['vmess', plain, cl('a', { security: 'aes-128-gcm' }), { id: 'uuid-a', security: 'aes-128-gcm', email: 'a' }],
    ['trojan', tls, cl('a', { flow: 'xtls-rprx-vision' }), { password: 'pw-a', flow: 'xtls-rprx-vision', email: 'a' }],
    ['trojan', plain, cl('a'), { password: 'pw-a', email: 'a' }],
    [
      'shadowsocks',
      { settings: { method: 'aes-256-gcm' }, streamSettings: {} },
      cl('a'),
      { password: 'pw-a', method: 'aes-256-gcm', email: 'a' },
    ],
    [
      'shadowsocks',
      { settings: { method: 'aes-256-gcm' }, streamSettings: {} },
      cl('a', { method: 'chacha20-ietf-poly1305' }),
      { password: 'pw-a', method: 'chacha20-ietf-poly1305', email: 'a' },
    ],
    [
      'shadowsocks',
      { settings: { method: '2022-blake3-aes-128-gcm' }, streamSettings: {} },
      cl('a', { method: 'aes-256-gcm' }),
      { password: 'pw-a', email: 'a' },
    ],
    ['hysteria', plain, cl('a'), { auth: 'auth-a', email: 'a' }],
    ['hysteria2', plain, cl('a'), { auth: 'auth-a', email: 'a' }],
  ] as const)('%s', (protocol, inbound, client, expected) => {
    expect(clientEntry(protocol as Protocol, client, inbound as any)).toEqual(expected);
  });
  it('protocols without clients have no entry', () => {
    for (const p of ['socks', 'http', 'dokodemo', 'wireguard'] as Protocol[])
      expect(clientEntry(p, cl('a'), plain)).toBeNull();
  });
  it('flow is only eligible on tcp/raw with tls or reality', () => {
    expect(flowEligible({ network: 'tcp', security: 'reality' })).toBe(true);
    expect(flowEligible({ network: 'raw', security: 'tls' })).toBe(true);
    expect(flowEligible({ network: 'ws', security: 'tls' })).toBe(false);
    expect(flowEligible({ network: 'tcp', security: 'none' })).toBe(false);
    expect(flowEligible({})).toBe(false);
  });
  it('the live-change user matches the entry, account data from the inbound protocol', () => {
    const src = { settings: { method: 'aes-128-gcm' }, streamSettings: {} };
    const entry = clientEntry('shadowsocks', cl('a'), src)!;
    expect(userFromEntry('shadowsocks', entry, src)).toEqual({ email: 'a', password: 'pw-a', method: 'aes-128-gcm' });
    expect(coreUser('shadowsocks', cl('a'), src)).toEqual({ email: 'a', password: 'pw-a', method: 'aes-128-gcm' });
    expect(userFromEntry('vmess', clientEntry('vmess', cl('b'), src)!, src)).toEqual({
      email: 'b',
      id: 'uuid-b',
      security: 'auto',
    });
  });
});

describe('buildCoreConfig', () => {
  it('emits enabled local inbounds with their clients after the template inbounds, API ensured', () => {
    const r = build(
      view([ib(1, 'vless', { listen: '127.0.0.1' }), ib(2, 'vmess')], { 1: [cl('a'), cl('b')], 2: [cl('c')] }),
    );
    const cfg = r.config as any;
    expect(cfg.inbounds.map((i: any) => i.tag)).toEqual(['api', 'in-1', 'in-2']);
    expect(cfg.inbounds[0]).toEqual({
      tag: 'api',
      listen: '127.0.0.1',
      port: API,
      protocol: 'dokodemo-door',
      settings: { address: '127.0.0.1' },
    });
    expect(cfg.routing.rules[0]).toEqual({ type: 'field', inboundTag: ['api'], outboundTag: 'api' });
    expect(cfg.api.services).toEqual(expect.arrayContaining(['HandlerService', 'StatsService']));
    expect(cfg.stats).toEqual({});
    expect(cfg.policy.levels['0']).toMatchObject({ statsUserUplink: true, statsUserDownlink: true });
    expect(cfg.policy.system).toMatchObject({
      statsInboundUplink: true,
      statsInboundDownlink: true,
      statsOutboundUplink: true,
      statsOutboundDownlink: true,
    });
    expect(inboundOf(cfg, 'in-1')).toMatchObject({
      listen: '127.0.0.1',
      port: 10001,
      protocol: 'vless',
      settings: {
        decryption: 'none',
        clients: [
          { id: 'uuid-a', email: 'a' },
          { id: 'uuid-b', email: 'b' },
        ],
      },
    });
    expect(inboundOf(cfg, 'in-2').settings.clients).toEqual([{ id: 'uuid-c', security: 'auto', email: 'c' }]);
    expect(r.notes).toEqual([]);
  });

  it('omits an empty listen (V2Ray panics on "listen": "")', () => {
    const cfg = build(view([ib(1, 'vmess')])).config as any;
    expect('listen' in inboundOf(cfg, 'in-1')).toBe(false);
  });

  it('skips disabled inbounds and inbounds bound to a node', () => {
    const cfg = build(view([ib(1, 'vmess', { enable: false }), ib(2, 'vmess', { nodeId: 3 }), ib(3, 'vmess')]))
      .config as any;
    expect(cfg.inbounds.map((i: any) => i.tag)).toEqual(['api', 'in-3']);
  });

  it('strips panel-only keys and never stores clients from settings', () => {
    const cfg = build(
      view(
        [
          ib(1, 'vless', {
            settings: { clients: [{ id: 'stale' }], decryption: 'none' },
            streamSettings: {
              network: 'tcp',
              security: 'tls',
              externalProxy: [{ dest: 'x' }],
              tlsSettings: { certificates: [], settings: { fingerprint: 'chrome' } },
            },
          }),
        ],
        { 1: [cl('a')] },
      ),
    ).config as any;
    const out = inboundOf(cfg, 'in-1');
    expect(out.settings.clients).toEqual([{ id: 'uuid-a', email: 'a' }]);
    expect(out.streamSettings).toEqual({ network: 'tcp', security: 'tls', tlsSettings: { certificates: [] } });
  });

  it('maps protocol names (dokodemo → dokodemo-door, hysteria2 → hysteria version 2)', () => {
    const cfg = build(
      view([ib(1, 'dokodemo', { settings: { address: '1.1.1.1', port: 53 } }), ib(2, 'hysteria2')], { 2: [cl('h')] }),
    ).config as any;
    expect(inboundOf(cfg, 'in-1')).toMatchObject({
      protocol: 'dokodemo-door',
      settings: { address: '1.1.1.1', port: 53 },
    });
    expect(inboundOf(cfg, 'in-2')).toMatchObject({
      protocol: 'hysteria',
      settings: { version: 2, clients: [{ auth: 'auth-h', email: 'h' }] },
    });
  });

  it('emits fallbacks from the rules, in sort order, to enabled children', () => {
    const master = ib(1, 'vless', { streamSettings: { network: 'tcp', security: 'tls' } });
    const r = build(
      view(
        [master, ib(2, 'vless', { listen: '127.0.0.1' }), ib(3, 'trojan'), ib(4, 'vmess', { enable: false })],
        { 1: [cl('a')] },
        [
          { masterId: 1, childId: 3, name: '', alpn: '', path: '/t', xver: 1, sortOrder: 2 },
          { masterId: 1, childId: 2, name: 'sni.example', alpn: 'h2', path: '', xver: 0, sortOrder: 1 },
          { masterId: 1, childId: 4, name: '', alpn: '', path: '/gone', xver: 0, sortOrder: 3 },
        ],
      ),
    );
    expect(inboundOf(r.config, 'in-1').settings.fallbacks).toEqual([
      { name: 'sni.example', alpn: 'h2', dest: '127.0.0.1:10002', xver: 0 },
      { path: '/t', dest: 10003, xver: 1 },
    ]);
    expect(r.notes.join('\n')).toMatch(/fallback to inbound 4 left out/);
  });

  it('refuses duplicate tags with a note', () => {
    const tpl = defaultTemplate(API) as any;
    tpl.inbounds.push({ tag: 'in-1', port: 1, protocol: 'socks', settings: {} });
    const r = build(view([ib(1, 'vmess')]), 'xray', tpl);
    expect((r.config as any).inbounds.filter((i: any) => i.tag === 'in-1')).toHaveLength(1);
    expect(r.notes[0]).toMatch(/tag is already used/);
  });

  it('sets the access log when asked', () => {
    const r = buildCoreConfig(defaultTemplate(API), view([]), {
      flavour: 'xray',
      apiPort: API,
      accessLog: '/data/access.log',
    });
    expect((r.config as any).log).toMatchObject({ access: '/data/access.log', loglevel: 'warning' });
  });

  it('records shape and users for the live sync', () => {
    const r = build(view([ib(1, 'trojan')], { 1: [cl('a'), cl('b')] }));
    expect(r.inbounds[0]!.liveUsers).toBe(true);
    expect([...r.inbounds[0]!.users.keys()]).toEqual(['a', 'b']);
    expect(r.inbounds[0]!.shapeKey).not.toContain('pw-a');
  });
});

describe('V2Ray flavour', () => {
  it('folds shadowsocks to its single (first enabled) user and says so', () => {
    const r = build(
      view([ib(1, 'shadowsocks', { settings: { method: 'aes-256-gcm', network: 'tcp,udp' } })], {
        1: [cl('a'), cl('b')],
      }),
      'v2ray',
    );
    const out = inboundOf(r.config, 'in-1');
    expect(out.settings).toEqual({ method: 'aes-256-gcm', network: 'tcp,udp', password: 'pw-a', email: 'a' });
    expect(r.inbounds[0]!.liveUsers).toBe(false);
    expect(r.notes[0]).toMatch(/single-user; only a runs, 1 other/);
  });

  it('leaves out a shadowsocks inbound without clients, waiting for one', () => {
    const r = build(view([ib(1, 'shadowsocks', { settings: { method: 'aes-256-gcm' } })]), 'v2ray');
    expect(inboundOf(r.config, 'in-1')).toBeUndefined();
    expect(r.waitingForClients).toEqual([1]);
  });

  it.each([
    [
      'REALITY (never as plaintext)',
      ib(1, 'vless', { streamSettings: { network: 'tcp', security: 'reality', realitySettings: { dest: 'x:443' } } }),
      /REALITY/,
    ],
    ['xhttp', ib(1, 'vless', { streamSettings: { network: 'xhttp' } }), /xhttp transport/],
    ['grpc', ib(1, 'vmess', { streamSettings: { network: 'grpc' } }), /grpc transport/],
    ['httpupgrade', ib(1, 'vmess', { streamSettings: { network: 'httpupgrade' } }), /httpupgrade/],
    ['hysteria', ib(1, 'hysteria'), /no hysteria inbound/],
    ['wireguard', ib(1, 'wireguard'), /no wireguard/],
    ['mixed', ib(1, 'mixed'), /no mixed/],
    ['ss-2022', ib(1, 'shadowsocks', { settings: { method: '2022-blake3-aes-128-gcm' } }), /shadowsocks-2022/],
    [
      'VLESS decryption',
      ib(1, 'vless', { settings: { decryption: 'mlkem768x25519plus.native.0rtt.abc' } }),
      /decryption "none"/,
    ],
  ])('leaves out %s with a reason', (_name, inbound, reason) => {
    const r = build(view([inbound], { 1: [cl('a')] }), 'v2ray');
    expect(inboundOf(r.config, 'in-1')).toBeUndefined();
    expect(r.notes.join('\n')).toMatch(reason);
    expect(r.notes.join('\n')).toMatch(/in-1/);
  });

  it('runs the same inbounds under Xray', () => {
    const r = build(
      view(
        [
          ib(1, 'vless', {
            streamSettings: {
              network: 'tcp',
              security: 'reality',
              realitySettings: { dest: 'x:443', settings: { publicKey: 'k' } },
            },
          }),
        ],
        { 1: [cl('a')] },
      ),
      'xray',
    );
    expect(inboundOf(r.config, 'in-1').streamSettings.realitySettings).toEqual({ dest: 'x:443' });
  });

  it('adapts what it can: raw → tcp, tunnel → dokodemo-door, quic/fakedns sniffing dropped, reverse dropped', () => {
    const r = build(
      view(
        [
          ib(1, 'vless', {
            streamSettings: { network: 'raw', rawSettings: { header: { type: 'none' } } },
            sniffing: { enabled: true, destOverride: ['http', 'tls', 'quic', 'fakedns'] },
          }),
          ib(2, 'tunnel', { settings: { address: '1.1.1.1', port: 53 } }),
        ],
        { 1: [cl('a', { reverse: { tag: 'r' } })] },
      ),
      'v2ray',
    );
    const one = inboundOf(r.config, 'in-1');
    expect(one.streamSettings).toEqual({ network: 'tcp', tcpSettings: { header: { type: 'none' } } });
    expect(one.sniffing.destOverride).toEqual(['http', 'tls']);
    expect(one.settings.clients).toEqual([{ id: 'uuid-a', email: 'a' }]);
    expect(inboundOf(r.config, 'in-2').protocol).toBe('dokodemo-door');
  });
});

describe('template', () => {
  it('default template is a complete config with api, direct and blocked', () => {
    const t = defaultTemplate(1234) as any;
    expect(t.log.loglevel).toBe('warning');
    expect(t.inbounds).toEqual([
      { tag: 'api', listen: '127.0.0.1', port: 1234, protocol: 'dokodemo-door', settings: { address: '127.0.0.1' } },
    ]);
    expect(t.outbounds.map((o: any) => o.tag)).toEqual(['direct', 'blocked']);
    expect(t.routing.rules[0]).toEqual({ type: 'field', inboundTag: ['api'], outboundTag: 'api' });
  });

  it.each([
    ['not json', /not valid JSON/],
    ['[]', /must be a JSON object/],
    ['{"inbounds": {}}', /inbounds must be an array/],
    ['{"outbounds": [{"tag": "x"}]}', /outbounds\[0\]\.protocol is required/],
    ['{"routing": {"rules": {}}}', /routing.rules must be an array/],
    ['{"log": 3}', /log must be an object/],
    [
      '{"inbounds": [{"tag": "a", "protocol": "socks"}, {"tag": "a", "protocol": "http"}]}',
      /duplicate inbound tag "a"/,
    ],
  ])('refuses %s', (text, msg) => {
    expect(() => parseTemplate(text)).toThrow(msg);
  });

  it('ensureApi moves the API inbound first, forces its port, and keeps one API rule first', () => {
    const cfg = ensureApi(
      {
        api: { tag: 'api', services: ['StatsService'] },
        inbounds: [
          { tag: 'socks', port: 1, protocol: 'socks' },
          { tag: 'api', port: 9, protocol: 'dokodemo-door' },
        ],
        routing: {
          rules: [
            { type: 'field', outboundTag: 'direct', ip: ['1.1.1.1'] },
            { type: 'field', inboundTag: ['api'], outboundTag: 'api' },
          ],
        },
      },
      555,
    ) as any;
    expect(cfg.inbounds.map((i: any) => [i.tag, i.port])).toEqual([
      ['api', 555],
      ['socks', 1],
    ]);
    expect(cfg.routing.rules).toHaveLength(2);
    expect(cfg.routing.rules[0].outboundTag).toBe('api');
    expect(cfg.api.services).toEqual(['StatsService', 'HandlerService', 'LoggerService']);
  });
});
