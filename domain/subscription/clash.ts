// Clash Meta (Mihomo) YAML: `proxies` with the fields Mihomo reads per type, one `PROXY` selector group, and
// rules sending everything to it. Profiles Mihomo cannot express (kcp; tcp with an http header on trojan or
// shadowsocks; trojan without TLS; shadowsocks over a v2ray transport or TLS; xhttp outside VLESS) are left
// out rather than emitted broken. Names are made unique (`name`, `name-2`, …), as Mihomo refuses duplicates.
import { stringify } from 'yaml';
import type { ProxyProfile } from '../links/model.js';

type Obj = Record<string, unknown>;

export const CLASH_GROUP = 'PROXY';

function transport(p: ProxyProfile, out: Obj): boolean {
  const t = p.transport;
  const kind = p.protocol;
  switch (t.network) {
    case 'tcp':
      if (t.headerType === 'http') {
        if (kind !== 'vmess' && kind !== 'vless') return false;
        out.network = 'http';
        out['http-opts'] = { method: 'GET', path: t.paths, ...(t.hosts.length ? { headers: { Host: t.hosts } } : {}) };
        return true;
      }
      out.network = 'tcp';
      return true;
    case 'ws':
    case 'httpupgrade': {
      if (kind === 'shadowsocks') return false;
      out.network = 'ws';
      const opts: Obj = { path: t.path };
      if (t.host) opts.headers = { Host: t.host };
      if (t.network === 'httpupgrade') opts['v2ray-http-upgrade'] = true;
      out['ws-opts'] = opts;
      return true;
    }
    case 'grpc':
      if (kind === 'shadowsocks') return false;
      out.network = 'grpc';
      out['grpc-opts'] = { 'grpc-service-name': t.serviceName };
      return true;
    case 'xhttp': {
      if (kind !== 'vless') return false;
      out.network = 'xhttp';
      const opts: Obj = { path: t.path, mode: t.mode };
      if (t.host) opts.host = t.host;
      out['xhttp-opts'] = opts;
      return true;
    }
    default:
      return false;
  }
}

function security(p: ProxyProfile, out: Obj): boolean {
  const s = p.security;
  const sniKey = p.protocol === 'trojan' ? 'sni' : 'servername';
  if (s.type === 'none') {
    if (p.protocol === 'trojan') return false;
    if (p.protocol !== 'shadowsocks') out.tls = false;
    return true;
  }
  if (p.protocol === 'shadowsocks') return false;
  if (p.protocol !== 'trojan') out.tls = true;
  if (s.sni) out[sniKey] = s.sni;
  out['client-fingerprint'] = s.fp || undefined;
  if (s.type === 'tls') {
    if (s.alpn.length) out.alpn = s.alpn;
    if (s.allowInsecure) out['skip-cert-verify'] = true;
  } else {
    out['reality-opts'] = { 'public-key': s.pbk, 'short-id': s.sid };
    if (!s.fp) out['client-fingerprint'] = 'chrome';
  }
  if (out['client-fingerprint'] === undefined) delete out['client-fingerprint'];
  return true;
}

/** The Mihomo proxy entry of one profile, or null when Mihomo cannot express it. */
export function clashProxy(p: ProxyProfile): Obj | null {
  const out: Obj = { name: p.name, type: '', server: p.host, port: p.port, udp: true };
  switch (p.protocol) {
    case 'vmess':
      Object.assign(out, { type: 'vmess', uuid: p.uuid, alterId: 0, cipher: p.vmessSecurity });
      break;
    case 'vless':
      Object.assign(out, { type: 'vless', uuid: p.uuid });
      if (p.flow) out.flow = p.flow;
      if (p.encryption && p.encryption !== 'none') out.encryption = p.encryption;
      break;
    case 'trojan':
      Object.assign(out, { type: 'trojan', password: p.password });
      break;
    case 'shadowsocks':
      if (!p.method) return null;
      Object.assign(out, { type: 'ss', cipher: p.method, password: p.password });
      break;
    case 'hysteria':
    case 'hysteria2': {
      const s = p.security.type === 'tls' ? p.security : null;
      if (p.hyVersion === 2) Object.assign(out, { type: 'hysteria2', password: p.auth });
      else {
        const hs = p.transport.raw;
        const rate = (v: unknown, d: string) =>
          typeof v === 'number' && v > 0 ? `${v} Mbps` : typeof v === 'string' && v ? v : d;
        Object.assign(out, {
          type: 'hysteria',
          'auth-str': p.auth,
          protocol: 'udp',
          up: rate(hs.up, '100 Mbps'),
          down: rate(hs.down, '100 Mbps'),
        });
      }
      if (s?.sni) out.sni = s.sni;
      if (s?.alpn.length) out.alpn = s.alpn;
      if (s?.fp) out['client-fingerprint'] = s.fp;
      if (s?.allowInsecure) out['skip-cert-verify'] = true;
      if (p.hyVersion === 2 && p.obfsPassword)
        Object.assign(out, { obfs: 'salamander', 'obfs-password': p.obfsPassword });
      return out;
    }
  }
  if (!transport(p, out)) return null;
  if (!security(p, out)) return null;
  return out;
}

/** Gives every proxy a non-empty name that no earlier proxy has. */
export function uniqueNames(proxies: Obj[]): void {
  const seen = new Set<string>();
  proxies.forEach((proxy, i) => {
    const base = String(proxy.name || `${proxy.type}-${proxy.server}-${proxy.port}` || `proxy-${i + 1}`);
    let name = base;
    for (let n = 2; seen.has(name) || name === 'DIRECT' || name === 'REJECT' || name === CLASH_GROUP; n++)
      name = `${base}-${n}`;
    seen.add(name);
    proxy.name = name;
  });
}

/** The whole YAML document. */
export function renderClash(profiles: ProxyProfile[]): string {
  const proxies = profiles.map(clashProxy).filter((p): p is Obj => p !== null);
  uniqueNames(proxies);
  const names = proxies.map((p) => p.name as string);
  const config = {
    'mixed-port': 7890,
    'allow-lan': false,
    mode: 'rule',
    'log-level': 'info',
    proxies,
    'proxy-groups': [{ name: CLASH_GROUP, type: 'select', proxies: [...names, 'DIRECT'] }],
    rules: [`MATCH,${CLASH_GROUP}`],
  };
  return stringify(config, { lineWidth: 0 });
}
