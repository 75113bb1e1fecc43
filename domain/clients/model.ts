/** A client as stored (one row, whatever the number of inbounds it is attached to). */
export interface ClientRecord {
  id: number;
  email: string;
  subId: string;
  /** VLESS/VMess identity (the API's `id` input field). */
  uuid: string;
  /** Trojan/Shadowsocks secret. */
  password: string;
  /** Hysteria secret. */
  auth: string;
  flow: string;
  /** VMess security (cipher), e.g. `auto`. */
  security: string;
  /** Legacy shadowsocks per-client method, copied from the inbound. */
  method: string;
  /** Quota in bytes (despite the name); 0 unlimited. */
  totalGB: number;
  /** ms; 0 none; negative = delayed start of -expiryTime ms from first use. */
  expiryTime: number;
  enable: boolean;
  limitIp: number;
  tgId: number;
  comment: string;
  group: string;
  reverse: { tag: string } | null;
  /** Auto-renew period in days; 0 off. */
  reset: number;
  createdAt: number;
  updatedAt: number;
}

/** A client row as stored: the record with `reverse` as its JSON text (backups and the raw statements carry it so). */
export type StoredClientRow = Omit<ClientRecord, 'reverse'> & { reverse: string | null };

/** A client's counters (spec: Client traffic record, with total/expiryTime projected from the client). */
export interface ClientTrafficRow {
  email: string;
  up: number;
  down: number;
  /** false when the panel auto-disabled the client (depleted). */
  enable: boolean;
  /** Unix seconds; 0 never. */
  lastOnline: number;
}

/** Client status buckets (spec: States and transitions). */
export const BUCKETS = ['online', 'active', 'deactive', 'depleted', 'expiring'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** Flow values the spec names. */
export const FLOWS = ['', 'xtls-rprx-vision', 'xtls-rprx-vision-udp443'] as const;

/** Sort keys of /clients/list/paged. */
export const SORT_KEYS = ['enable', 'email', 'inboundIds', 'traffic', 'remaining', 'expiryTime'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** A client row as written (id and timestamps are the store's/service's business). */
export type ClientWrite = Omit<ClientRecord, 'id'>;

/** Traffic as shown on a client. */
export interface ClientTrafficView {
  up: number;
  down: number;
  enable: boolean;
  lastOnline: number;
}

/** A client with its attachments and counters (clients/list, clients/get). */
export interface ClientDetail extends ClientRecord {
  inboundIds: number[];
  traffic: ClientTrafficView;
}

/** A row of the paged client list (no secrets). */
export interface ClientListRow {
  email: string;
  subId: string;
  enable: boolean;
  totalGB: number;
  expiryTime: number;
  limitIp: number;
  reset: number;
  comment: string;
  group: string;
  inboundIds: number[];
  traffic: ClientTrafficView;
  createdAt: number;
  updatedAt: number;
}

/** Inputs of the status predicates: time and the settings that widen `expiring`. */
export interface BucketParams {
  /** Unix ms. */
  now: number;
  /** Unix seconds: clients with lastOnline >= this are online. */
  onlineSince: number;
  /** expireDiff in ms (setting expireDiff days). */
  expireDiffMs: number;
  /** trafficDiff in bytes (setting trafficDiff GB). */
  trafficDiffBytes: number;
}

export interface PageQuery {
  page: number;
  pageSize: number;
  search: string;
  filter: Bucket | '';
  protocol: string;
  sort: SortKey | '';
  order: 'ascend' | 'descend';
  /** Optional group filter (not in the spec; the reference has it). */
  group?: string;
  /** Optional: only clients attached to this inbound (not in the spec; the UI pages a large inbound's clients). */
  inboundId?: number;
}

/** Per-bucket email lists are capped (the counts are exact). */
export const SUMMARY_EMAIL_CAP = 200;

export interface ClientsSummary {
  total: number;
  active: number;
  online: string[];
  depleted: string[];
  expiring: string[];
  deactive: string[];
  onlineCount: number;
  depletedCount: number;
  expiringCount: number;
  deactiveCount: number;
}

export interface ClientPage {
  items: ClientListRow[];
  total: number;
  filtered: number;
  page: number;
  pageSize: number;
  summary: ClientsSummary;
  groups: string[];
}

export interface GroupSummary {
  name: string;
  clientCount: number;
}

/** The order group names are listed in: case-insensitive, then by code unit (so the order is total). */
export const compareGroupNames = (a: string, b: string): number => {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

export interface BulkSkip {
  email: string;
  reason: string;
}
