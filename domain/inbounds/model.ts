/** Protocols an inbound may have (spec: Inbound). */
export const PROTOCOLS = [
  'vless',
  'vmess',
  'trojan',
  'shadowsocks',
  'hysteria',
  'hysteria2',
  'socks',
  'http',
  'mixed',
  'wireguard',
  'dokodemo',
  'tunnel',
] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Protocols offered for attaching clients (spec: multi-client protocols). */
export const MULTI_CLIENT_PROTOCOLS: readonly Protocol[] = [
  'shadowsocks',
  'vless',
  'vmess',
  'trojan',
  'hysteria',
  'hysteria2',
];

export type Json = Record<string, unknown>;

/** An inbound as stored: `settings` never holds `clients` (they are projected from client rows on read). */
export interface InboundRecord {
  id: number;
  userId: number;
  up: number;
  down: number;
  total: number;
  remark: string;
  enable: boolean;
  expiryTime: number;
  listen: string;
  port: number;
  protocol: Protocol;
  settings: Json;
  streamSettings: Json;
  sniffing: Json;
  tag: string;
  nodeId: number | null;
}

/** Protocols that may be bound to a remote node (their clients are pushed through the node's client API). */
export const NODE_CAPABLE_PROTOCOLS: readonly Protocol[] = MULTI_CLIENT_PROTOCOLS;

/** Picker projection (spec: Inbound option). */
export interface InboundOption {
  id: number;
  remark: string;
  protocol: Protocol;
  port: number;
  tlsFlowCapable: boolean;
}

/** Spec: Fallback rule. */
export interface FallbackRule {
  id: number;
  masterId: number;
  childId: number;
  name: string;
  alpn: string;
  path: string;
  xver: number;
  sortOrder: number;
}

export type FallbackInput = Omit<FallbackRule, 'id' | 'masterId'>;

/** What add/update write: the record without the server-kept id and counters. */
export type InboundWrite = Omit<InboundRecord, 'id' | 'up' | 'down'>;

/** One client as projected into an inbound's `settings.clients` (full form). */
export type ProjectedClient = Record<string, unknown>;

/** A per-client traffic row as shown in an inbound's `clientStats`. */
export interface ClientStat {
  id: number;
  inboundId: number;
  email: string;
  enable: boolean;
  up: number;
  down: number;
  total: number;
  expiryTime: number;
  reset: number;
  lastOnline: number;
  uuid?: string;
  subId?: string;
}

/** An inbound as the API returns it (settings with projected clients, clientStats). */
export interface InboundView extends Omit<InboundRecord, 'settings'> {
  settings: Json & { clients?: ProjectedClient[] };
  clientStats: ClientStat[];
}
