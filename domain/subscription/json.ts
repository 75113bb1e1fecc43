// JSON subscription: one complete client config per profile, which an Xray or V2Ray client runs as it is:
// local socks (10808) and http (10809) inbounds on 127.0.0.1, the proxy outbound, direct and block outbounds,
// routing (everything to the proxy), and the remark in `remarks`. Outbounds use the classic
// `vnext`/`servers` form that both Xray and V2Ray v4 accept; no geoip/geosite rules (they need .dat files).
import type { ProxyProfile } from '../links/model.js';
import { xhttpExtra } from '../links/uri.js';

type Obj = Record<string, unknown>;

export const JSON_SOCKS_PORT = 10808;
export const JSON_HTTP_PORT = 10809;

function streamSettings(p: ProxyProfile): Obj {
  const t = p.transport;
  const out: Obj = { network: t.network };
  switch (t.network) {
    case 'tcp':
      if (t.headerType === 'http') {
        out.tcpSettings = {
          header: { type: 'http', request: { path: t.paths, headers: t.hosts.length ? { Host: t.hosts } : {} } },
        };
      }
      break;
    case 'ws': {
      const ws: Obj = { path: t.path };
      if (t.host) {
        ws.host = t.host;
        ws.headers = { Host: t.host };
      }
      out.wsSettings = ws;
      break;
    }
    case 'httpupgrade':
      out.httpupgradeSettings = t.host ? { path: t.path, host: t.host } : { path: t.path };
      break;
    case 'xhttp': {
      const x: Obj = { path: t.path, mode: t.mode };
      if (t.host) x.host = t.host;
      const extra = xhttpExtra(t.raw);
      if (extra) x.extra = extra;
      out.xhttpSettings = x;
      break;
    }
    case 'grpc': {
      const g: Obj = { serviceName: t.serviceName, multiMode: t.mode === 'multi' };
      if (t.authority) g.authority = t.authority;
      out.grpcSettings = g;
      break;
    }
    case 'kcp': {
      const k: Obj = { header: { type: t.headerType } };
      if (t.seed) k.seed = t.seed;
      if (t.mtu) k.mtu = t.mtu;
      if (t.tti) k.tti = t.tti;
      out.kcpSettings = k;
      break;
    }
    case 'hysteria':
      out.hysteriaSettings = { version: p.hyVersion, auth: p.auth };
      break;
  }
  const s = p.security;
  if (s.type === 'tls') {
    const tls: Obj = {};
    if (s.sni) tls.serverName = s.sni;
    if (s.alpn.length) tls.alpn = s.alpn;
    if (s.fp) tls.fingerprint = s.fp;
    if (s.allowInsecure) tls.allowInsecure = true;
    if (s.ech) tls.echConfigList = s.ech;
    out.security = 'tls';
    out.tlsSettings = tls;
  } else if (s.type === 'reality') {
    out.security = 'reality';
    out.realitySettings = {
      show: false,
      serverName: s.sni,
      fingerprint: s.fp,
      publicKey: s.pbk,
      shortId: s.sid,
      spiderX: s.spx,
      ...(s.pqv ? { mldsa65Verify: s.pqv } : {}),
    };
  } else {
    out.security = 'none';
  }
  return out;
}

/** The proxy outbound (tag `proxy`) of one profile. */
export function proxyOutbound(p: ProxyProfile): Obj {
  const stream = streamSettings(p);
  switch (p.protocol) {
    case 'vmess':
      return {
        tag: 'proxy',
        protocol: 'vmess',
        settings: {
          vnext: [{ address: p.host, port: p.port, users: [{ id: p.uuid, security: p.vmessSecurity, level: 8 }] }],
        },
        streamSettings: stream,
      };
    case 'vless': {
      const user: Obj = { id: p.uuid, encryption: p.encryption, level: 8 };
      if (p.flow) user.flow = p.flow;
      return {
        tag: 'proxy',
        protocol: 'vless',
        settings: { vnext: [{ address: p.host, port: p.port, users: [user] }] },
        streamSettings: stream,
      };
    }
    case 'trojan':
      return {
        tag: 'proxy',
        protocol: 'trojan',
        settings: { servers: [{ address: p.host, port: p.port, password: p.password, level: 8 }] },
        streamSettings: stream,
      };
    case 'shadowsocks':
      return {
        tag: 'proxy',
        protocol: 'shadowsocks',
        settings: { servers: [{ address: p.host, port: p.port, method: p.method, password: p.password, level: 8 }] },
        streamSettings: stream,
      };
    case 'hysteria':
    case 'hysteria2':
      return {
        tag: 'proxy',
        protocol: 'hysteria',
        settings: { version: p.hyVersion, address: p.host, port: p.port },
        streamSettings: stream,
      };
  }
}

/** One complete client config. */
export function clientConfig(p: ProxyProfile): Obj {
  return {
    remarks: p.name,
    log: { loglevel: 'warning' },
    inbounds: [
      {
        tag: 'socks',
        listen: '127.0.0.1',
        port: JSON_SOCKS_PORT,
        protocol: 'socks',
        settings: { auth: 'noauth', udp: true, userLevel: 8 },
        sniffing: { enabled: true, destOverride: ['http', 'tls'] },
      },
      { tag: 'http', listen: '127.0.0.1', port: JSON_HTTP_PORT, protocol: 'http', settings: { userLevel: 8 } },
    ],
    outbounds: [
      proxyOutbound(p),
      { tag: 'direct', protocol: 'freedom', settings: { domainStrategy: 'AsIs' } },
      { tag: 'block', protocol: 'blackhole', settings: { response: { type: 'http' } } },
    ],
    policy: { levels: { '8': { handshake: 4, connIdle: 300, uplinkOnly: 1, downlinkOnly: 1 } } },
    routing: { domainStrategy: 'AsIs', rules: [{ type: 'field', network: 'tcp,udp', outboundTag: 'proxy' }] },
  };
}

/** The JSON subscription body: an array of configs, one per profile. */
export function renderJson(profiles: ProxyProfile[]): string {
  return JSON.stringify(profiles.map(clientConfig), null, 2);
}
