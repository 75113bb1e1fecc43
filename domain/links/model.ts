// The normalised proxy profile: one (inbound, client, endpoint) triple with everything a share link, a JSON
// client config or a Clash proxy needs. `profilesFor()` (profile.ts) builds it; uri.ts, subscription/json.ts and
// subscription/clash.ts render it. Pure data, no I/O.
import type { InboundRecord } from '../inbounds/model.js';
import type { ClientRecord } from '../clients/model.js';

/** The inbound fields link building reads. */
export type LinkInbound = Pick<
  InboundRecord,
  'id' | 'protocol' | 'listen' | 'port' | 'remark' | 'settings' | 'streamSettings'
>;
/** The client fields link building reads. */
export type LinkClient = Pick<ClientRecord, 'email' | 'uuid' | 'password' | 'auth' | 'flow' | 'security' | 'method'>;

/** Protocols that have a share-link form. */
export const LINK_PROTOCOLS = ['vmess', 'vless', 'trojan', 'shadowsocks', 'hysteria', 'hysteria2'] as const;
export type LinkProtocol = (typeof LINK_PROTOCOLS)[number];
export const hasLinkForm = (p: string): p is LinkProtocol => (LINK_PROTOCOLS as readonly string[]).includes(p);

export type Network = 'tcp' | 'kcp' | 'ws' | 'grpc' | 'httpupgrade' | 'xhttp' | 'hysteria';

export interface Transport {
  network: Network;
  /**
   * tcp: header type (`none` or `http`); kcp: header type (`none`, `srtp`, `utp`, `wechat-video`, `dtls`, `wireguard`).
   */
  headerType: string;
  /** ws/httpupgrade/xhttp path; tcp-http first request path; grpc service name is in `serviceName`. */
  path: string;
  /** ws/httpupgrade/xhttp host; tcp-http first Host header value. */
  host: string;
  /** tcp-http: every request path and Host value (Clash and the JSON config carry the lists). */
  paths: string[];
  hosts: string[];
  serviceName: string;
  authority: string;
  /** grpc `multi` / `gun`; xhttp mode (`auto`, `packet-up`, `stream-up`, `stream-one`). */
  mode: string;
  /** kcp seed. */
  seed: string;
  /** kcp mtu/tti when set (0 otherwise). */
  mtu: number;
  tti: number;
  /** The raw transport settings object of the inbound (xhttpSettings, kcpSettings…), for the JSON config. */
  raw: Record<string, unknown>;
}

export type Security =
  | { type: 'none' }
  | { type: 'tls'; sni: string; alpn: string[]; fp: string; allowInsecure: boolean; ech: string }
  | { type: 'reality'; sni: string; pbk: string; sid: string; spx: string; fp: string; pqv: string };

export interface ProxyProfile {
  protocol: LinkProtocol;
  /** The remark: inbound remark, client email, external proxy remark, joined by `-`. */
  name: string;
  /** Host to connect to (no brackets for IPv6). */
  host: string;
  port: number;
  email: string;
  /** VLESS/VMess identity. */
  uuid: string;
  /** VLESS flow (only on tcp with tls/reality), VLESS encryption (`none` unless the inbound says otherwise). */
  flow: string;
  encryption: string;
  /** VMess cipher (`auto` when empty). */
  vmessSecurity: string;
  /** Trojan password; Shadowsocks password (`serverKey:userKey` for 2022 ciphers). */
  password: string;
  /** Shadowsocks method. */
  method: string;
  /** Hysteria auth and version (1 or 2). */
  auth: string;
  hyVersion: 1 | 2;
  /** Hysteria2 salamander obfs password ('' none). */
  obfsPassword: string;
  transport: Transport;
  security: Security;
}

/** An entry of `streamSettings.externalProxy`. */
export interface ExternalProxy {
  /** `same` keeps the inbound's security, `tls` forces TLS, `none` forces plain. */
  forceTls: 'same' | 'tls' | 'none';
  dest: string;
  port: number;
  remark: string;
  sni: string;
  fp: string;
  alpn: string[];
}
