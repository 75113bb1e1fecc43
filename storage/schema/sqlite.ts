// Tables for the libsql (SQLite) dialect. storage/schema/pg.ts holds the same tables, column for column;
// test/storage/schema-parity.test.ts keeps the two equal.
import { sqliteTable, integer, text, primaryKey, index, uniqueIndex, real } from 'drizzle-orm/sqlite-core';

const bool = (name: string) => integer(name, { mode: 'boolean' });
const num = (name: string) => integer(name, { mode: 'number' });

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  username: text('username').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  /** Bumped whenever the credential changes; sessions carrying an older value are refused. */
  sessionVersion: num('session_version').notNull().default(1),
});

/** Key/value settings; `value` is JSON text. */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const apiTokens = sqliteTable('api_tokens', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  token: text('token').notNull().unique(),
  enabled: bool('enabled').notNull().default(true),
  createdAt: num('created_at').notNull(),
});

export const nodes = sqliteTable('nodes', {
  id: integer('id').primaryKey({ autoIncrement: true }),
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
  cpuPct: real('cpu_pct').notNull().default(0),
  memPct: real('mem_pct').notNull().default(0),
  uptimeSecs: num('uptime_secs').notNull().default(0),
  lastError: text('last_error').notNull().default(''),
  createdAt: num('created_at').notNull(),
  updatedAt: num('updated_at').notNull(),
});

/** An inbound. `settings` is stored WITHOUT `clients`: those are projected from client rows on read. */
export const inbounds = sqliteTable(
  'inbounds',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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
    nodeId: integer('node_id', { mode: 'number' }),
  },
  (t) => [index('inbounds_port_idx').on(t.port)],
);

/** A client (user). One row per client whatever the number of inbounds it is attached to. */
export const clients = sqliteTable(
  'clients',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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
  (t) => [
    index('clients_sub_id_idx').on(t.subId),
    // SQLite only (PostgreSQL scans instead, for HOT group renames: see pg.ts): groups list in ~9 ms instead of ~40
    index('clients_group_idx').on(t.group),
    index('clients_expiry_idx').on(t.expiryTime),
  ],
);

/** Which inbounds a client is attached to. */
export const clientInbounds = sqliteTable(
  'client_inbounds',
  {
    clientId: num('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    inboundId: num('inbound_id')
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
 */
export const clientTraffics = sqliteTable('client_traffics', {
  email: text('email').primaryKey(),
  up: num('up').notNull().default(0),
  down: num('down').notNull().default(0),
  enable: bool('enable').notNull().default(true),
  /** Unix seconds of the last tick in which the counters moved; 0 never. */
  lastOnline: num('last_online').notNull().default(0),
});

/** Emails of deleted clients, so that a node sync cannot bring them back. */
export const clientTombstones = sqliteTable('client_tombstones', {
  email: text('email').primaryKey(),
  deletedAt: num('deleted_at').notNull(),
});

/** Persistent group names (a group may exist before any client carries its label). */
export const clientGroups = sqliteTable('client_groups', {
  name: text('name').primaryKey(),
  createdAt: num('created_at').notNull(),
});

/** Source IPs seen per client (from the core's access log). `lastSeen` in Unix seconds. */
export const clientIps = sqliteTable(
  'client_ips',
  {
    email: text('email').notNull(),
    ip: text('ip').notNull(),
    lastSeen: num('last_seen').notNull(),
  },
  (t) => [primaryKey({ columns: [t.email, t.ip] })],
);

export const fallbacks = sqliteTable(
  'fallbacks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    masterId: num('master_id')
      .notNull()
      .references(() => inbounds.id, { onDelete: 'cascade' }),
    childId: num('child_id')
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

export const customGeo = sqliteTable(
  'custom_geo',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    type: text('type').notNull(),
    alias: text('alias').notNull(),
    url: text('url').notNull(),
    status: text('status').notNull().default(''),
    lastDownload: num('last_download').notNull().default(0),
  },
  (t) => [uniqueIndex('custom_geo_type_alias_idx').on(t.type, t.alias)],
);

export const outboundTraffics = sqliteTable('outbound_traffics', {
  tag: text('tag').primaryKey(),
  up: num('up').notNull().default(0),
  down: num('down').notNull().default(0),
});

/**
 * Per (node, client) the node's counters as last accounted: the central counter grows by `current - baseline`
 * (domain/nodes/puller.ts); written in the same transaction as the central counters.
 */
export const nodeClientCounters = sqliteTable(
  'node_client_counters',
  {
    nodeId: num('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    up: num('up').notNull().default(0),
    down: num('down').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.email] })],
);

/**
 * Inbounds this panel placed on a node: which remote inbound (id and tag) stands for which local one, and a hash
 * of the configuration last pushed. A row whose local inbound is gone or moved is the remote inbound to delete.
 */
export const nodeInbounds = sqliteTable(
  'node_inbounds',
  {
    nodeId: num('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    inboundId: num('inbound_id').notNull(),
    remoteId: num('remote_id').notNull(),
    remoteTag: text('remote_tag').notNull(),
    pushedHash: text('pushed_hash').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.inboundId] })],
);

/** Node cpu/mem samples (Unix seconds), kept about 6 hours like the host's own history. */
export const nodeSamples = sqliteTable(
  'node_samples',
  {
    nodeId: num('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    t: num('t').notNull(),
    cpu: real('cpu').notNull().default(0),
    mem: real('mem').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.t] })],
);
