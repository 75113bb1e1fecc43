// 3x-ui databases (x-ui.db) built from the layout of the reference's GORM models, for the import tests: the
// v2.x line (clients only inside each inbound's settings JSON, all_time counters, plaintext or bcrypt admin
// password) and v3.x (clients, client_inbounds, client_groups, inbound_fallbacks, api_tokens, nodes, custom geo).
// Both hold shared emails across inbounds, depleted and expired clients, a delayed-start client and a fallback
// master inbound.
import { createClient } from '@libsql/client';

export const DAY = 86_400_000;
export const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
export const U = (n: number) => `7f3c1e2a-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const BCRYPT = '$2a$10$CwTycUXWue0Thq9StjUM0uJ8.Ch3w5bW5Y0lR1yXoVq9l0cF3Xz1e';

export interface XuiFixtureOptions {
  version: 'v2' | 'v3';
  /** Ports of the vless master (TLS), the vmess child, trojan and shadowsocks inbounds. */
  ports: [number, number, number, number];
  certFile: string;
  keyFile: string;
  /** The admin password as stored: a bcrypt hash, or plaintext (older x-ui). */
  adminPassword?: string;
}

const V2_DDL = [
  'CREATE TABLE users (id integer PRIMARY KEY AUTOINCREMENT, username text, password text)',
  `CREATE TABLE inbounds (id integer PRIMARY KEY AUTOINCREMENT, user_id integer, up integer, down integer, total integer,
    all_time integer DEFAULT 0, remark text, enable numeric, expiry_time integer, traffic_reset text DEFAULT "never",
    last_traffic_reset_time integer DEFAULT 0, listen text, port integer, protocol text, settings text, stream_settings text,
    tag text, sniffing text, CONSTRAINT uni_inbounds_tag UNIQUE (tag))`,
  'CREATE TABLE settings (id integer PRIMARY KEY AUTOINCREMENT, key text, value text)',
  `CREATE TABLE client_traffics (id integer PRIMARY KEY AUTOINCREMENT, inbound_id integer, enable numeric, email text,
    up integer, down integer, all_time integer, expiry_time integer, total integer, reset integer DEFAULT 0,
    last_online integer DEFAULT 0, CONSTRAINT uni_client_traffics_email UNIQUE (email))`,
  'CREATE TABLE outbound_traffics (id integer PRIMARY KEY AUTOINCREMENT, tag text, up integer DEFAULT 0, down integer DEFAULT 0, total integer DEFAULT 0)',
  'CREATE TABLE inbound_client_ips (id integer PRIMARY KEY AUTOINCREMENT, client_email text, ips text)',
  'CREATE TABLE history_of_seeders (id integer PRIMARY KEY AUTOINCREMENT, seeder_name text)',
];

const V3_DDL = [
  'CREATE TABLE users (id integer PRIMARY KEY AUTOINCREMENT, username text, password text, login_epoch integer DEFAULT 0)',
  `CREATE TABLE inbounds (id integer PRIMARY KEY AUTOINCREMENT, user_id integer, up integer, down integer, total integer,
    remark text, enable numeric, expiry_time integer, traffic_reset text DEFAULT "never", last_traffic_reset_time integer DEFAULT 0,
    listen text, port integer, protocol text, settings text, stream_settings text, tag text, sniffing text, node_id integer,
    CONSTRAINT uni_inbounds_tag UNIQUE (tag))`,
  'CREATE TABLE settings (id integer PRIMARY KEY AUTOINCREMENT, key text, value text)',
  `CREATE TABLE client_traffics (id integer PRIMARY KEY AUTOINCREMENT, inbound_id integer, enable numeric, email text,
    up integer, down integer, expiry_time integer, total integer, reset integer DEFAULT 0, last_online integer DEFAULT 0,
    CONSTRAINT uni_client_traffics_email UNIQUE (email))`,
  'CREATE TABLE outbound_traffics (id integer PRIMARY KEY AUTOINCREMENT, tag text, up integer DEFAULT 0, down integer DEFAULT 0, total integer DEFAULT 0)',
  'CREATE TABLE inbound_client_ips (id integer PRIMARY KEY AUTOINCREMENT, client_email text, ips text)',
  'CREATE TABLE history_of_seeders (id integer PRIMARY KEY AUTOINCREMENT, seeder_name text)',
  `CREATE TABLE custom_geo_resources (id integer PRIMARY KEY AUTOINCREMENT, geo_type text NOT NULL, alias text NOT NULL, url text NOT NULL,
    local_path text, last_updated_at integer DEFAULT 0, last_modified text, created_at integer, updated_at integer)`,
  `CREATE TABLE nodes (id integer PRIMARY KEY AUTOINCREMENT, name text, remark text, scheme text, address text, port integer,
    base_path text, api_token text, enable numeric DEFAULT true, allow_private_address numeric DEFAULT false,
    tls_verify_mode text DEFAULT "verify", pinned_cert_sha256 text, status text DEFAULT "unknown", last_heartbeat integer,
    latency_ms integer, xray_version text, panel_version text, cpu_pct real, mem_pct real, uptime_secs integer, last_error text,
    config_dirty numeric DEFAULT false, config_dirty_at integer, created_at integer, updated_at integer)`,
  `CREATE TABLE api_tokens (id integer PRIMARY KEY AUTOINCREMENT, name text NOT NULL, token text NOT NULL, enabled numeric DEFAULT true, created_at integer)`,
  `CREATE TABLE clients (id integer PRIMARY KEY AUTOINCREMENT, email text NOT NULL, sub_id text, uuid text, password text, auth text,
    flow text, security text, reverse text, limit_ip integer, total_gb integer, expiry_time integer, enable numeric DEFAULT true,
    tg_id integer, group_name text DEFAULT '', comment text, reset integer DEFAULT 0, created_at integer, updated_at integer)`,
  'CREATE TABLE client_inbounds (client_id integer, inbound_id integer, flow_override text, created_at integer, PRIMARY KEY (client_id, inbound_id))',
  'CREATE TABLE client_groups (id integer PRIMARY KEY AUTOINCREMENT, name text NOT NULL, created_at integer, updated_at integer)',
  `CREATE TABLE inbound_fallbacks (id integer PRIMARY KEY AUTOINCREMENT, master_id integer NOT NULL, child_id integer NOT NULL,
    name text, alpn text, path text, dest text, xver integer, sort_order integer DEFAULT 0)`,
  'CREATE TABLE node_client_traffics (id integer PRIMARY KEY AUTOINCREMENT, node_id integer NOT NULL, email text NOT NULL, up integer, down integer)',
];

/** The clients each fixture means, as 3x-ui would list them in settings.clients. */
export function fixtureClients() {
  return {
    alice: {
      id: U(1),
      email: 'alice@x',
      flow: '',
      limitIp: 2,
      totalGB: 0,
      expiryTime: 0,
      enable: true,
      tgId: '',
      subId: 'sub-alice',
      comment: 'vip',
      reset: 0,
    },
    shared: {
      id: U(2),
      email: 'shared@x',
      limitIp: 0,
      totalGB: 50 * 2 ** 30,
      expiryTime: NOW + 30 * DAY,
      enable: true,
      tgId: 424242,
      subId: 'sub-shared',
      comment: '',
      reset: 30,
    },
    expired: {
      id: U(3),
      email: 'expired@x',
      limitIp: 0,
      totalGB: 0,
      expiryTime: NOW - 2 * DAY,
      enable: true,
      tgId: 0,
      subId: 'sub-exp',
      comment: '',
      reset: 0,
    },
    delayed: {
      id: U(4),
      email: 'delayed@x',
      limitIp: 0,
      totalGB: 0,
      expiryTime: -3 * DAY,
      enable: true,
      tgId: 0,
      subId: 'sub-delay',
      comment: '',
      reset: 0,
    },
    depleted: {
      password: 'trojan-pass-1',
      email: 'depleted@x',
      limitIp: 0,
      totalGB: 2 ** 20,
      expiryTime: 0,
      enable: true,
      tgId: 0,
      subId: 'sub-dep',
      comment: '',
      reset: 0,
    },
    ss: {
      method: 'aes-128-gcm',
      password: 'ss-pass-1',
      email: 'ss@x',
      limitIp: 0,
      totalGB: 0,
      expiryTime: 0,
      enable: true,
      tgId: 0,
      subId: 'sub-ss',
      comment: '',
      reset: 0,
    },
    off: {
      id: U(5),
      email: 'off@x',
      limitIp: 0,
      totalGB: 0,
      expiryTime: 0,
      enable: false,
      tgId: 0,
      subId: 'sub-off',
      comment: 'paused',
      reset: 0,
    },
  };
}

export async function buildXuiDb(path: string, o: XuiFixtureOptions): Promise<void> {
  const db = createClient({ url: `file:${path}` });
  const v3 = o.version === 'v3';
  const run = (q: string, args: unknown[] = []) => db.execute({ sql: q, args: args as never });
  for (const q of v3 ? V3_DDL : V2_DDL) await run(q);
  const c = fixtureClients();
  const [pMaster, pVmess, pTrojan, pSs] = o.ports;
  const tls = {
    network: 'tcp',
    security: 'tls',
    tlsSettings: { serverName: 'example.com', certificates: [{ certificateFile: o.certFile, keyFile: o.keyFile }] },
    tcpSettings: { header: { type: 'none' } },
  };
  const sniff = JSON.stringify({ enabled: true, destOverride: ['http', 'tls'], metadataOnly: false, routeOnly: false });
  const inbounds = [
    {
      id: 1,
      remark: 'master',
      port: pMaster,
      protocol: 'vless',
      reset: 'monthly',
      settings: {
        clients: [c.alice, { ...c.shared, flow: '' }, c.off],
        decryption: 'none',
        fallbacks: v3 ? [] : [{ path: '/vm', dest: pVmess, xver: 0 }],
      },
      stream: tls,
    },
    {
      id: 2,
      remark: 'vmess child',
      port: pVmess,
      protocol: 'vmess',
      reset: 'never',
      listen: '127.0.0.1',
      settings: {
        clients: [
          { ...c.shared, security: 'auto' },
          { ...c.expired, security: 'auto' },
          { ...c.delayed, security: 'auto' },
        ],
      },
      stream: { network: 'ws', security: 'none', wsSettings: { path: '/vm', headers: {} } },
    },
    {
      id: 3,
      remark: 'trojan',
      port: pTrojan,
      protocol: 'trojan',
      reset: 'never',
      settings: { clients: [c.depleted], fallbacks: [] },
      stream: { network: 'tcp', security: 'none' },
    },
    {
      id: 4,
      remark: 'ss',
      port: pSs,
      protocol: 'shadowsocks',
      reset: 'never',
      settings: { method: 'aes-128-gcm', password: '', network: 'tcp,udp', clients: [c.ss] },
      stream: { network: 'tcp', security: 'none' },
    },
    {
      id: 5,
      remark: 'tun device',
      port: 0,
      protocol: 'tun',
      reset: 'never',
      settings: { name: 'xray0', mtu: 1500 },
      stream: {},
    },
  ];
  for (const ib of inbounds) {
    const cols = [
      'id',
      'user_id',
      'up',
      'down',
      'total',
      'remark',
      'enable',
      'expiry_time',
      'traffic_reset',
      'listen',
      'port',
      'protocol',
      'settings',
      'stream_settings',
      'tag',
      'sniffing',
    ];
    const vals: unknown[] = [
      ib.id,
      1,
      ib.id * 1000,
      ib.id * 2000,
      0,
      ib.remark,
      1,
      0,
      ib.reset,
      ib.listen ?? '',
      ib.port,
      ib.protocol,
      JSON.stringify(ib.settings),
      JSON.stringify(ib.stream),
      `inbound-${ib.port}`,
      sniff,
    ];
    if (!v3) {
      cols.push('all_time');
      vals.push(123_456_789);
    }
    await run(`INSERT INTO inbounds (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, vals);
  }
  const traffic: [number, string, number, number, boolean, number, number][] = [
    // inbound, email, up, down, enable, total, last_online (ms)
    [1, 'alice@x', 1_000, 2_000, true, 0, NOW - 60_000],
    [1, 'shared@x', 3 * 2 ** 30, 4 * 2 ** 30, true, 50 * 2 ** 30, NOW - 120_000],
    [1, 'off@x', 0, 0, true, 0, 0],
    [2, 'expired@x', 10, 20, false, 0, NOW - 5 * DAY],
    [2, 'delayed@x', 0, 0, true, 0, 0],
    [3, 'depleted@x', 2 ** 19, 2 ** 19 + 5, false, 2 ** 20, NOW - DAY],
    [4, 'ss@x', 7, 8, true, 0, 0],
    [3, 'orphan@x', 99, 1, true, 0, 0],
  ];
  for (const [ib, email, up, down, enable, total, last] of traffic) {
    const cols = ['inbound_id', 'enable', 'email', 'up', 'down', 'expiry_time', 'total', 'reset', 'last_online'];
    const vals: unknown[] = [ib, enable ? 1 : 0, email, up, down, 0, total, 0, last];
    if (!v3) {
      cols.push('all_time');
      vals.push(up + down + 1_000_000);
    }
    await run(`INSERT INTO client_traffics (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, vals);
  }
  await run('INSERT INTO users (username, password) VALUES (?, ?)', ['xadmin', o.adminPassword ?? BCRYPT]);
  const settings: [string, string][] = [
    ['webPort', '2053'],
    ['subPath', '/mysub/'],
    ['subTitle', 'Moved from 3x-ui'],
    ['tgBotChatId', '111,222'],
    ['timeLocation', 'Local'],
    ['secret', 'xui-session-secret'],
    ['remarkModel', '-ieo'],
    ['restartXrayOnClientDisable', 'true'],
    ['expireDiff', '3'],
    ['subEncrypt', 'false'],
    [
      'xrayTemplateConfig',
      JSON.stringify({
        log: { loglevel: 'warning' },
        outbounds: [
          { protocol: 'freedom', tag: 'direct' },
          { protocol: 'blackhole', tag: 'blocked' },
        ],
        routing: { rules: [] },
      }),
    ],
  ];
  for (const [k, v] of settings) await run('INSERT INTO settings (key, value) VALUES (?, ?)', [k, v]);
  await run("INSERT INTO outbound_traffics (tag, up, down, total) VALUES ('direct', 5, 6, 11)");
  await run("INSERT INTO inbound_client_ips (client_email, ips) VALUES ('alice@x', '[\"203.0.113.1\"]')");
  await run("INSERT INTO history_of_seeders (seeder_name) VALUES ('UserPasswordHash')");
  if (v3) {
    const rec = [c.alice, c.shared, c.off, c.expired, c.delayed, c.depleted, c.ss];
    let id = 0;
    const ids: Record<string, number> = {};
    for (const r of rec) {
      ids[r.email] = ++id;
      const x = r as Record<string, unknown>;
      await run(
        `INSERT INTO clients (id, email, sub_id, uuid, password, auth, flow, security, reverse, limit_ip, total_gb, expiry_time, enable, tg_id, group_name, comment, reset, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, '', '', '', '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          id,
          r.email,
          r.subId,
          String(x.id ?? ''),
          String(x.password ?? ''),
          r.limitIp,
          r.totalGB,
          r.expiryTime,
          r.enable ? 1 : 0,
          Number(r.tgId) || 0,
          r.email === 'shared@x' ? 'team' : '',
          r.comment,
          r.reset,
          NOW - DAY,
          NOW,
        ],
      );
    }
    const links: [string, number][] = [
      ['alice@x', 1],
      ['shared@x', 1],
      ['off@x', 1],
      ['shared@x', 2],
      ['expired@x', 2],
      ['delayed@x', 2],
      ['depleted@x', 3],
      ['ss@x', 4],
    ];
    for (const [email, ib] of links)
      await run('INSERT INTO client_inbounds (client_id, inbound_id, created_at) VALUES (?, ?, ?)', [
        ids[email],
        ib,
        NOW,
      ]);
    await run("INSERT INTO client_groups (name, created_at, updated_at) VALUES ('team', ?, ?), ('nobody yet', ?, ?)", [
      NOW,
      NOW,
      NOW,
      NOW,
    ]);
    await run(
      "INSERT INTO inbound_fallbacks (master_id, child_id, name, alpn, path, dest, xver, sort_order) VALUES (1, 2, '', '', '/vm', ?, 0, 0)",
      [String(pVmess)],
    );
    await run(
      "INSERT INTO api_tokens (name, token, enabled, created_at) VALUES ('hashed', ?, 1, ?), ('plain', 'plain-token-123', 1, ?)",
      ['a'.repeat(64), NOW, NOW],
    );
    await run(
      "INSERT INTO custom_geo_resources (geo_type, alias, url, last_updated_at, created_at, updated_at) VALUES ('geosite', 'ads', 'https://example.com/ads.dat', 0, ?, ?)",
      [NOW, NOW],
    );
    await run("INSERT INTO node_client_traffics (node_id, email, up, down) VALUES (1, 'alice@x', 1, 2)");
  }
  db.close();
}
