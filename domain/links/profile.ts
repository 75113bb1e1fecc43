// Builds normalised proxy profiles from an inbound and a client: one profile per advertised endpoint (the
// inbound's own address, or one per `streamSettings.externalProxy` entry).
import type { ExternalProxy, LinkClient, LinkInbound, Network, ProxyProfile, Security, Transport } from './model.js';
import { hasLinkForm } from './model.js';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : 0;
/** A list of strings from an array, or from a comma-separated string. */
function strList(v: unknown): string[] {
  if (Array.isArray(v))
    return v
      .map(str)
      .map((s) => s.trim())
      .filter(Boolean);
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
}
/** The value of a Host header in a headers object (any case; string or list). */
function headerValues(headers: unknown, name: string): string[] {
  for (const [k, v] of Object.entries(obj(headers))) if (k.toLowerCase() === name) return strList(v);
  return [];
}

/** `streamSettings.network`, with the aliases the core accepts folded (raw → tcp, splithttp → xhttp). */
export function networkOf(stream: Obj): Network {
  const n = str(stream.network).toLowerCase();
  if (n === '' || n === 'raw' || n === 'tcp') return 'tcp';
  if (n === 'splithttp') return 'xhttp';
  if (n === 'kcp' || n === 'mkcp') return 'kcp';
  if (n === 'ws' || n === 'grpc' || n === 'httpupgrade' || n === 'xhttp' || n === 'hysteria') return n;
  return 'tcp';
}

export function parseTransport(stream: Obj, network: Network): Transport {
  const t: Transport = {
    network,
    headerType: 'none',
    path: '',
    host: '',
    paths: [],
    hosts: [],
    serviceName: '',
    authority: '',
    mode: '',
    seed: '',
    mtu: 0,
    tti: 0,
    raw: {},
  };
  switch (network) {
    case 'tcp': {
      const tcp = obj(stream.tcpSettings ?? stream.rawSettings);
      t.raw = tcp;
      const header = obj(tcp.header);
      if (str(header.type) === 'http') {
        const request = obj(header.request);
        t.headerType = 'http';
        t.paths = strList(request.path);
        if (t.paths.length === 0) t.paths = ['/'];
        t.hosts = headerValues(request.headers, 'host');
        t.path = t.paths[0]!;
        t.host = t.hosts[0] ?? '';
      }
      break;
    }
    case 'ws':
    case 'httpupgrade':
    case 'xhttp': {
      const key = network === 'ws' ? 'wsSettings' : network === 'httpupgrade' ? 'httpupgradeSettings' : 'xhttpSettings';
      const s = obj(stream[key] ?? (network === 'xhttp' ? stream.splithttpSettings : undefined));
      t.raw = s;
      t.path = str(s.path) || '/';
      t.host = str(s.host) || (headerValues(s.headers, 'host')[0] ?? '');
      if (network === 'xhttp') t.mode = str(s.mode) || 'auto';
      break;
    }
    case 'grpc': {
      const g = obj(stream.grpcSettings);
      t.raw = g;
      t.serviceName = str(g.serviceName);
      t.authority = str(g.authority);
      t.mode = g.multiMode === true ? 'multi' : 'gun';
      break;
    }
    case 'kcp': {
      const k = obj(stream.kcpSettings);
      t.raw = k;
      t.headerType = str(obj(k.header).type) || 'none';
      t.seed = str(k.seed);
      t.mtu = num(k.mtu);
      t.tti = num(k.tti);
      break;
    }
    case 'hysteria':
      t.raw = obj(stream.hysteriaSettings);
      break;
  }
  return t;
}

export function parseSecurity(stream: Obj, forceTls = false): Security {
  const type = forceTls ? 'tls' : str(stream.security).toLowerCase();
  if (type === 'tls') {
    const tls = obj(stream.tlsSettings);
    const inner = obj(tls.settings);
    return {
      type: 'tls',
      sni: str(tls.serverName) || str(inner.serverName),
      alpn: strList(tls.alpn),
      fp: str(inner.fingerprint) || str(tls.fingerprint),
      allowInsecure: inner.allowInsecure === true || tls.allowInsecure === true,
      ech: str(inner.echConfigList) || str(tls.echConfigList),
    };
  }
  if (type === 'reality') {
    const r = obj(stream.realitySettings);
    const inner = obj(r.settings);
    return {
      type: 'reality',
      sni: strList(r.serverNames)[0] ?? (str(inner.serverName) || str(r.serverName)),
      pbk: str(inner.publicKey) || str(r.publicKey),
      sid: Array.isArray(r.shortIds) ? str(r.shortIds[0]) : str(r.shortId),
      spx: str(inner.spiderX) || str(r.spiderX) || '/',
      fp: str(inner.fingerprint) || str(r.fingerprint) || 'chrome',
      pqv: str(inner.mldsa65Verify),
    };
  }
  return { type: 'none' };
}

export function parseExternalProxies(stream: Obj): ExternalProxy[] {
  if (!Array.isArray(stream.externalProxy)) return [];
  const out: ExternalProxy[] = [];
  for (const raw of stream.externalProxy) {
    const e = obj(raw);
    const dest = str(e.dest)
      .trim()
      .replace(/^\[|\]$/g, '');
    const port = num(e.port);
    if (!dest || port < 1 || port > 65535) continue;
    const f = str(e.forceTls);
    out.push({
      forceTls: f === 'tls' || f === 'none' ? f : 'same',
      dest,
      port,
      remark: str(e.remark),
      sni: str(e.sni),
      fp: str(e.fingerprint),
      alpn: strList(e.alpn),
    });
  }
  return out;
}

/** `inbound remark - email - external proxy remark`, empty parts left out. */
export const remarkOf = (inboundRemark: string, email: string, extra = ''): string =>
  [inboundRemark, email, extra].filter((s) => s !== '').join('-');

/** Security for an external proxy entry: `forceTls` switches it, and the entry's sni/fp/alpn override TLS fields. */
function securityForProxy(base: Security, ep: ExternalProxy): Security {
  let s: Security = base;
  if (ep.forceTls === 'none') s = { type: 'none' };
  else if (ep.forceTls === 'tls' && base.type !== 'tls')
    s = { type: 'tls', sni: '', alpn: [], fp: '', allowInsecure: false, ech: '' };
  if (s.type === 'tls') {
    s = { ...s, alpn: [...s.alpn] };
    if (ep.sni) s.sni = ep.sni;
    if (ep.fp) s.fp = ep.fp;
    if (ep.alpn.length) s.alpn = ep.alpn;
  }
  return s;
}

function hysteriaObfs(settings: Obj, stream: Obj): string {
  const o = obj(settings.obfs);
  if (str(o.type) === 'salamander') return str(obj(o.salamander).password) || str(o.password);
  const masks = obj(stream.finalmask).udp;
  if (Array.isArray(masks)) {
    for (const m of masks) if (str(obj(m).type) === 'salamander') return str(obj(obj(m).settings).password);
  }
  return '';
}

/**
 * The profiles of one client on one inbound: one per endpoint. `host` is the advertised host (see address.ts).
 * Protocols without a link form give none.
 */
export function profilesFor(inbound: LinkInbound, client: LinkClient, host: string): ProxyProfile[] {
  if (!hasLinkForm(inbound.protocol)) return [];
  const settings = obj(inbound.settings);
  const stream = obj(inbound.streamSettings);
  const isHy = inbound.protocol === 'hysteria' || inbound.protocol === 'hysteria2';
  const network: Network = isHy ? 'hysteria' : networkOf(stream);
  const transport = parseTransport(stream, network);
  const security = parseSecurity(stream, isHy);

  let password = '';
  let method = '';
  if (inbound.protocol === 'trojan') password = client.password;
  if (inbound.protocol === 'shadowsocks') {
    const inboundMethod = str(settings.method);
    if (inboundMethod.startsWith('2022-')) {
      method = inboundMethod;
      const serverKey = str(settings.password);
      password = serverKey ? `${serverKey}:${client.password}` : client.password;
    } else {
      method = client.method || inboundMethod;
      password = client.password;
    }
  }
  const flowAllowed =
    inbound.protocol === 'vless' && network === 'tcp' && (security.type === 'tls' || security.type === 'reality');
  const version = num(settings.version);
  const base: Omit<ProxyProfile, 'name' | 'host' | 'port' | 'security'> = {
    protocol: inbound.protocol,
    email: client.email,
    uuid: client.uuid,
    flow: flowAllowed ? client.flow : '',
    encryption: str(settings.encryption) || 'none',
    vmessSecurity: client.security || 'auto',
    password,
    method,
    auth: client.auth,
    hyVersion: inbound.protocol === 'hysteria2' || version === 2 ? 2 : 1,
    obfsPassword: isHy ? hysteriaObfs(settings, stream) : '',
    transport,
  };

  const proxies = parseExternalProxies(stream);
  if (proxies.length === 0) {
    return [{ ...base, name: remarkOf(inbound.remark, client.email), host, port: inbound.port, security }];
  }
  return proxies.map((ep) => {
    const sec = isHy ? security : securityForProxy(security, ep);
    const flow = base.flow && (sec.type === 'tls' || sec.type === 'reality') ? base.flow : '';
    return {
      ...base,
      flow,
      name: remarkOf(inbound.remark, client.email, ep.remark),
      host: ep.dest,
      port: ep.port,
      security: sec,
    };
  });
}

/**
 * A fallback child as clients reach it: through its master's address, port and security (TLS/REALITY settings
 * and external proxies); the transport stays the child's own.
 */
export function throughMaster<T extends LinkInbound>(child: T, master: LinkInbound): T {
  const cs = obj(child.streamSettings);
  const ms = obj(master.streamSettings);
  const stream: Obj = { ...cs, security: ms.security ?? 'none' };
  delete stream.tlsSettings;
  delete stream.realitySettings;
  if (ms.tlsSettings !== undefined) stream.tlsSettings = ms.tlsSettings;
  if (ms.realitySettings !== undefined) stream.realitySettings = ms.realitySettings;
  if (ms.externalProxy !== undefined) stream.externalProxy = ms.externalProxy;
  return { ...child, listen: master.listen, port: master.port, streamSettings: stream };
}
