// Share links (the URL forms proxy apps import) from normalised profiles.
//   vmess://   base64 of the v2rayN JSON object (v, ps, add, port, id, scy, net, type, host, path, tls, sni, alpn, fp)
//   vless://   uuid@host:port?type=…&encryption=…&security=…#remark
//   trojan://  password@host:port?type=…&security=…#remark
//   ss://      SIP002: base64url(method:password)@host:port?type=…#remark (2022 ciphers: password = serverKey:userKey)
//   hysteria:// (v1) and hy2:// (Hysteria 2): auth@host:port?security=tls&sni=…#remark
import { base64, base64url } from '../shared/random.js';
import { urlHost } from './address.js';
import type { ProxyProfile } from './model.js';

const utf8 = new TextEncoder();
/** Percent-encoding for userinfo, query values and the fragment (RFC 3986 unreserved characters stay). */
export const pct = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function query(params: [string, string][]): string {
  const parts = params.filter(([, v]) => v !== '').map(([k, v]) => `${k}=${pct(v)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Transport query parameters shared by vless, trojan and ss links. */
function transportParams(p: ProxyProfile): [string, string][] {
  const t = p.transport;
  const out: [string, string][] = [['type', t.network]];
  switch (t.network) {
    case 'tcp':
      if (t.headerType === 'http') out.push(['headerType', 'http'], ['path', t.path], ['host', t.host]);
      break;
    case 'kcp':
      if (t.headerType !== 'none') out.push(['headerType', t.headerType]);
      out.push(['seed', t.seed]);
      if (t.mtu) out.push(['mtu', String(t.mtu)]);
      if (t.tti) out.push(['tti', String(t.tti)]);
      break;
    case 'ws':
    case 'httpupgrade':
      out.push(['path', t.path], ['host', t.host]);
      break;
    case 'xhttp': {
      out.push(['path', t.path], ['host', t.host], ['mode', t.mode]);
      const extra = xhttpExtra(t.raw);
      if (extra) out.push(['extra', JSON.stringify(extra)]);
      break;
    }
    case 'grpc':
      out.push(['serviceName', t.serviceName], ['authority', t.authority]);
      if (t.mode === 'multi') out.push(['mode', 'multi']);
      break;
  }
  return out;
}

/** The client-relevant xhttp fields beyond path/host/mode, for the `extra` parameter (undefined when none). */
export function xhttpExtra(raw: Record<string, unknown>): Record<string, unknown> | undefined {
  const extra: Record<string, unknown> = {};
  for (const k of ['xPaddingBytes', 'scMaxEachPostBytes', 'scMinPostsIntervalMs', 'uplinkHTTPMethod']) {
    const v = raw[k];
    if ((typeof v === 'string' && v) || typeof v === 'number') extra[k] = v;
  }
  if (raw.noGRPCHeader === true) extra.noGRPCHeader = true;
  for (const k of ['xmux', 'downloadSettings']) {
    const v = raw[k];
    if (v && typeof v === 'object' && Object.keys(v).length) extra[k] = v;
  }
  const headers = raw.headers;
  if (headers && typeof headers === 'object') {
    const h = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'host'));
    if (Object.keys(h).length) extra.headers = h;
  }
  return Object.keys(extra).length ? extra : undefined;
}

function securityParams(p: ProxyProfile): [string, string][] {
  const s = p.security;
  if (s.type === 'tls') {
    const out: [string, string][] = [
      ['security', 'tls'],
      ['flow', p.flow],
      ['sni', s.sni],
      ['alpn', s.alpn.join(',')],
      ['fp', s.fp],
    ];
    if (s.allowInsecure) out.push(['allowInsecure', '1']);
    out.push(['ech', s.ech]);
    return out;
  }
  if (s.type === 'reality') {
    return [
      ['security', 'reality'],
      ['flow', p.flow],
      ['sni', s.sni],
      ['fp', s.fp],
      ['pbk', s.pbk],
      ['sid', s.sid],
      ['spx', s.spx],
      ['pqv', s.pqv],
    ];
  }
  return [['security', 'none']];
}

const tail = (p: ProxyProfile, params: [string, string][]) =>
  `${urlHost(p.host)}:${p.port}${query(params)}#${pct(p.name)}`;

export function vmessLink(p: ProxyProfile): string {
  const t = p.transport;
  const s = p.security;
  const o: Record<string, string | number> = {
    v: '2',
    ps: p.name,
    add: p.host,
    port: p.port,
    id: p.uuid,
    scy: p.vmessSecurity,
    net: t.network,
    type: 'none',
    host: '',
    path: '',
    tls: s.type === 'tls' ? 'tls' : 'none',
    sni: '',
    alpn: '',
    fp: '',
  };
  switch (t.network) {
    case 'tcp':
      o.type = t.headerType;
      if (t.headerType === 'http') {
        o.host = t.host;
        o.path = t.path;
      }
      break;
    case 'kcp':
      o.type = t.headerType;
      o.path = t.seed;
      break;
    case 'ws':
    case 'httpupgrade':
      o.host = t.host;
      o.path = t.path;
      break;
    case 'xhttp': {
      o.host = t.host;
      o.path = t.path;
      o.type = t.mode;
      o.mode = t.mode;
      const extra = xhttpExtra(t.raw);
      if (extra) o.extra = JSON.stringify(extra);
      break;
    }
    case 'grpc':
      o.path = t.serviceName;
      o.type = t.mode;
      o.host = t.authority;
      if (t.authority) o.authority = t.authority;
      break;
  }
  if (s.type === 'tls') {
    o.sni = s.sni;
    o.alpn = s.alpn.join(',');
    o.fp = s.fp;
    if (s.allowInsecure) o.allowInsecure = 1;
  }
  return `vmess://${base64(utf8.encode(JSON.stringify(o)))}`;
}

export function vlessLink(p: ProxyProfile): string {
  const params: [string, string][] = [...transportParams(p)];
  params.splice(1, 0, ['encryption', p.encryption]);
  params.push(...securityParams(p));
  return `vless://${pct(p.uuid)}@${tail(p, params)}`;
}

export function trojanLink(p: ProxyProfile): string {
  const params = [...transportParams(p), ...securityParams({ ...p, flow: '' })];
  return `trojan://${pct(p.password)}@${tail(p, params)}`;
}

export function shadowsocksLink(p: ProxyProfile): string {
  const params = transportParams(p);
  if (p.security.type === 'tls') params.push(...securityParams({ ...p, flow: '' }));
  const userinfo = base64url(utf8.encode(`${p.method}:${p.password}`));
  return `ss://${userinfo}@${tail(p, params)}`;
}

export function hysteriaLink(p: ProxyProfile): string {
  const s =
    p.security.type === 'tls' ? p.security : { sni: '', alpn: [] as string[], fp: '', allowInsecure: false, ech: '' };
  if (p.hyVersion === 2) {
    const params: [string, string][] = [
      ['security', 'tls'],
      ['sni', s.sni],
      ['alpn', s.alpn.join(',')],
      ['fp', s.fp],
    ];
    if (s.allowInsecure) params.push(['insecure', '1']);
    if (p.obfsPassword) params.push(['obfs', 'salamander'], ['obfs-password', p.obfsPassword]);
    return `hy2://${pct(p.auth)}@${tail(p, params)}`;
  }
  // Hysteria 1: the auth string goes in userinfo (as the reference panel writes it) and in `auth` (as the
  // Hysteria 1 URI scheme and the apps following it read it); `peer` is that scheme's name for the SNI.
  const params: [string, string][] = [
    ['protocol', 'udp'],
    ['auth', p.auth],
    ['security', 'tls'],
    ['peer', s.sni],
    ['sni', s.sni],
    ['alpn', s.alpn.join(',')],
    ['fp', s.fp],
  ];
  if (s.allowInsecure) params.push(['insecure', '1']);
  return `hysteria://${pct(p.auth)}@${tail(p, params)}`;
}

/** The share link of one profile. */
export function shareLink(p: ProxyProfile): string {
  switch (p.protocol) {
    case 'vmess':
      return vmessLink(p);
    case 'vless':
      return vlessLink(p);
    case 'trojan':
      return trojanLink(p);
    case 'shadowsocks':
      return shadowsocksLink(p);
    case 'hysteria':
    case 'hysteria2':
      return hysteriaLink(p);
  }
}
