// Tables for the PostgreSQL dialect: the same tables as storage/schema/sqlite.ts, column for column;
// test/storage/schema-parity.test.ts keeps the two equal.
import {
  pgTable,
  integer,
  bigint,
  serial,
  boolean,
  text,
  primaryKey,
  index,
  uniqueIndex,
  doublePrecision,
} from 'drizzle-orm/pg-core';

const bool = (name: string) => boolean(name);
const num = (name: string) => bigint(name, { mode: 'number' });

export const users = pgTable('users', {
  id: serial('id').primaryKey(),
  username: text('username').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  /** Bumped whenever the credential changes; sessions carrying an older value are refused. */
  sessionVersion: num('session_version').notNull().default(1),
});

/** Key/value settings; `value` is JSON text. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const apiTokens = pgTable('api_tokens', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  token: text('token').notNull().unique(),
  enabled: bool('enabled').notNull().default(true),
  createdAt: num('created_at').notNull(),
});

export const nodes = pgTable('nodes', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  remark: text('remark').notNull().default(''),
  scheme: text('scheme').notNull().default('https'),
  address: text('address').notNull(),
  port: num('port').notNull(),
  basePath: text('base_path').notNull().default('/'),
  apiToken: text('api_token').notNull().default(''),
  enable: bool('enable').notNull().default(true),
  allowPrivateAddress: bool('allow_private_address').notNull().default(false),
  /** https trust: verify (chain and name), pin (tls_pin: base64 SHA-256 of the public key), skip. */
  tlsMode: text('tls_mode').notNull().default('verify'),
  tlsPin: text('tls_pin').notNull().default(''),
  status: text('status').notNull().default('unknown'),
  lastHeartbeat: num('last_heartbeat').notNull().default(0),
  latencyMs: num('latency_ms').notNull().default(0),
  coreVersion: text('core_version').notNull().default(''),
  panelVersion: text('panel_version').notNull().default(''),
  cpuPct: doublePrecision('cpu_pct').notNull().default(0),
  memPct: doublePrecision('mem_pct').notNull().default(0),
  uptimeSecs: num('uptime_secs').notNull().default(0),
  lastError: text('last_error').notNull().default(''),
  createdAt: num('created_at').notNull(),
  updatedAt: num('updated_at').notNull(),
});

/** An inbound. `settings` is stored WITHOUT `clients`: those are projected from client rows on read. */
export const inbounds = pgTable(
  'inbounds',
  {
    id: serial('id').primaryKey(),
    userId: num('user_id').notNull().default(1),
    up: num('up').notNull().default(0),
    down: num('down').notNull().default(0),
    total: num('total').notNull().default(0),
    remark: text('remark').notNull().default(''),
    enable: bool('enable').notNull().default(true),
    expiryTime: num('expiry_time').notNull().default(0),
    listen: text('listen').notNull().default(''),
    port: num('port').notNull(),
    protocol: text('protocol').notNull(),
    settings: text('settings').notNull().default('{}'),
    streamSettings: text('stream_settings').notNull().default('{}'),
    sniffing: text('sniffing').notNull().default('{}'),
    tag: text('tag').notNull().unique(),
    nodeId: integer('node_id'),
  },
  (t) => [index('inbounds_port_idx').on(t.port)],
);

/**
 * A client (user). One row per client whatever the number of inbounds it is attached to.
 * PostgreSQL only: `fillfactor = 50` (hand-added to migration 0005) and no index on `group_name`, so that a group
 * rename or delete is a HOT update (docs/decisions/0003-postgresql-hot-updates-and-email-hash-index.md).
 */
export const clients = pgTable(
  'clients',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull().unique(),
    subId: text('sub_id').notNull().default(''),
    uuid: text('uuid').notNull().default(''),
    password: text('password').notNull().default(''),
    auth: text('auth').notNull().default(''),
    flow: text('flow').notNull().default(''),
    security: text('security').notNull().default(''),
    method: text('method').notNull().default(''),
    totalGB: num('total_bytes').notNull().default(0),
    expiryTime: num('expiry_time').notNull().default(0),
    enable: bool('enable').notNull().default(true),
    limitIp: num('limit_ip').notNull().default(0),
    tgId: num('tg_id').notNull().default(0),
    comment: text('comment').notNull().default(''),
    group: text('group_name').notNull().default(''),
    /** JSON text of `{tag}` or null. */
    reverse: text('reverse'),
    reset: num('reset_days').notNull().default(0),
    createdAt: num('created_at').notNull(),
    updatedAt: num('updated_at').notNull(),
  },
  (t) => [index('clients_sub_id_idx').on(t.subId), index('clients_expiry_idx').on(t.expiryTime)],
);

/** Which inbounds a client is attached to. */
export const clientInbounds = pgTable(
  'client_inbounds',
  {
    clientId: integer('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    inboundId: integer('inbound_id')
      .notNull()
      .references(() => inbounds.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.clientId, t.inboundId] }),
    // (inbound, client): an inbound's clients come from the index alone and already in client id order, so
    // inbounds/get of a 20,000-client inbound neither reads the link rows nor sorts them
    index('client_inbounds_inbound_client_idx').on(t.inboundId, t.clientId),
  ],
);

/**
 * A client's traffic counters, keyed by email so that `keepTraffic` can keep them after the client is deleted.
 * `enable=false` marks a client the panel auto-disabled (depleted: quota used or expiry passed).
 * PostgreSQL only: `fillfactor = 50`, set by the hand-written migration 0001 (Drizzle cannot express table storage
 * parameters, so drizzle-kit's snapshots do not carry it and `generate` stays a no-op for it).
 */
export const clientTraffics = pgTable(
  'client_traffics',
  {
    email: text('email').primaryKey(),
    up: num('up').notNull().default(0),
    down: num('down').notNull().default(0),
    enable: bool('enable').notNull().default(true),
    /** Unix seconds of the last tick in which the counters moved; 0 never. */
    lastOnline: num('last_online').notNull().default(0),
  },
  (t) => [
    // PostgreSQL only: the btree compares emails by collation, a hash probe does not (the join of inbounds/get;
    // docs/decisions/0003-postgresql-hot-updates-and-email-hash-index.md). SQLite compares bytes and needs no twin.
    index('client_traffics_email_hash_idx').using('hash', t.email),
  ],
);

/** Emails of deleted clients, so that a node sync cannot bring them back. */
export const clientTombstones = pgTable('client_tombstones', {
  email: text('email').primaryKey(),
  deletedAt: num('deleted_at').notNull(),
});

/** Persistent group names (a group may exist before any client carries its label). */
export const clientGroups = pgTable('client_groups', {
  name: text('name').primaryKey(),
  createdAt: num('created_at').notNull(),
});

/** Source IPs seen per client (from the core's access log). `lastSeen` in Unix seconds. */
export const clientIps = pgTable(
  'client_ips',
  {
    email: text('email').notNull(),
    ip: text('ip').notNull(),
    lastSeen: num('last_seen').notNull(),
  },
  (t) => [primaryKey({ columns: [t.email, t.ip] })],
);

export const fallbacks = pgTable(
  'fallbacks',
  {
    id: serial('id').primaryKey(),
    masterId: integer('master_id')
      .notNull()
      .references(() => inbounds.id, { onDelete: 'cascade' }),
    childId: integer('child_id')
      .notNull()
      .references(() => inbounds.id, { onDelete: 'cascade' }),
    name: text('name').notNull().default(''),
    alpn: text('alpn').notNull().default(''),
    path: text('path').notNull().default(''),
    xver: num('xver').notNull().default(0),
    sortOrder: num('sort_order').notNull().default(0),
  },
  (t) => [index('fallbacks_master_idx').on(t.masterId)],
);

export const customGeo = pgTable(
  'custom_geo',
  {
    id: serial('id').primaryKey(),
    type: text('type').notNull(),
    alias: text('alias').notNull(),
    url: text('url').notNull(),
    status: text('status').notNull().default(''),
    lastDownload: num('last_download').notNull().default(0),
  },
  (t) => [uniqueIndex('custom_geo_type_alias_idx').on(t.type, t.alias)],
);

export const outboundTraffics = pgTable('outbound_traffics', {
  tag: text('tag').primaryKey(),
  up: num('up').notNull().default(0),
  down: num('down').notNull().default(0),
});

/** See sqlite.ts. */
export const nodeClientCounters = pgTable(
  'node_client_counters',
  {
    nodeId: integer('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    up: num('up').notNull().default(0),
    down: num('down').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.email] })],
);

/** See sqlite.ts. */
export const nodeInbounds = pgTable(
  'node_inbounds',
  {
    nodeId: integer('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    inboundId: num('inbound_id').notNull(),
    remoteId: num('remote_id').notNull(),
    remoteTag: text('remote_tag').notNull(),
    pushedHash: text('pushed_hash').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.inboundId] })],
);

/** See sqlite.ts. */
export const nodeSamples = pgTable(
  'node_samples',
  {
    nodeId: integer('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    t: num('t').notNull(),
    cpu: doublePrecision('cpu').notNull().default(0),
    mem: doublePrecision('mem').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.t] })],
);
