// A panel database with a row in every table, for the backup, restore and copy suites: inbounds of every
// protocol, `clients` clients with traffic, groups, tokens, settings, nodes, fallbacks, custom geo sources, and
// the awkward values (false, null, JSON text, reals, large counters, negative expiry, non-ASCII text).
import { sql } from 'drizzle-orm';
import type { Conn } from '../../storage/conn.js';
import { readTable, tableSpecs } from '../../storage/copy.js';
import { PROTOCOLS } from '../../domain/inbounds/model.js';

export async function seedPanel(c: Conn, clients = 10_000): Promise<void> {
  const t = c.t;
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const chunks = async <R>(rows: R[], insert: (part: R[]) => Promise<unknown>) => {
    for (let i = 0; i < rows.length; i += 500) await insert(rows.slice(i, i + 500));
  };
  await c.tx(async (tx) => {
    const db = tx.db;
    await db
      .insert(t.users)
      .values({ username: 'admin', passwordHash: 'pbkdf2-sha256$600000$c2FsdA==$aGFzaA==', sessionVersion: 3 });
    await db.insert(t.settings).values([
      { key: 'subTitle', value: JSON.stringify('Ünïcode — title') },
      { key: 'webPort', value: '2053' },
      { key: 'tgBotEnable', value: 'false' },
      {
        key: 'coreSetting',
        value: JSON.stringify({ log: { loglevel: 'warning' }, outbounds: [{ protocol: 'freedom', tag: 'direct' }] }),
      },
    ]);
    await db.insert(t.apiTokens).values([
      { name: 'ci', token: 'tok-1', enabled: true, createdAt: now },
      { name: 'old', token: 'tok-2', enabled: false, createdAt: now - 1000 },
    ]);
    await db.insert(t.nodes).values({
      name: 'edge-1',
      remark: 'ƒrankfurt',
      address: 'node.example.com',
      port: 2053,
      apiToken: 'n-tok',
      enable: false,
      allowPrivateAddress: true,
      status: 'online',
      lastHeartbeat: 1_790_000_000,
      latencyMs: 42,
      coreVersion: '25.10.31',
      cpuPct: 12.5,
      memPct: 0.25,
      uptimeSecs: 86_400,
      tlsMode: 'pin',
      tlsPin: 'q0y3lRq2qGfM5Yb1Z4mV0o8x2sQj9Kc7Wn6Hd5Ue4Tg=',
      createdAt: now,
      updatedAt: now,
    });
    // What the node sync keeps per node: placements, per-(node, email) baselines, history samples.
    await db.insert(t.nodeClientCounters).values([
      { nodeId: 1, email: 'user1@example.com', up: 2 ** 33 + 7, down: 12_345 },
      { nodeId: 1, email: 'user2@example.com', up: 0, down: 1 },
    ]);
    await db.insert(t.nodeSamples).values([
      { nodeId: 1, t: 1_790_000_000, cpu: 12.5, mem: 0.25 },
      { nodeId: 1, t: 1_790_000_030, cpu: 99.75, mem: 0.5 },
    ]);
    await db.insert(t.inbounds).values(
      PROTOCOLS.map((protocol, i) => ({
        up: 2 ** 40 + i,
        down: i * 1000,
        total: i % 2 ? 0 : 5 * 2 ** 30,
        remark: `${protocol} ☂ it's "quoted"`,
        enable: i % 3 !== 0,
        expiryTime: i === 1 ? 1_800_000_000_000 : 0,
        listen: i === 2 ? '127.0.0.1' : '',
        port: 20_000 + i,
        protocol,
        settings: JSON.stringify({ decryption: 'none', note: `p${i}` }),
        streamSettings: JSON.stringify({ network: 'tcp', security: i === 0 ? 'tls' : 'none' }),
        sniffing: JSON.stringify({ enabled: i % 2 === 0, destOverride: ['http', 'tls'] }),
        tag: `inbound-${20_000 + i}`,
        nodeId: i === 3 ? 1 : null,
      })),
    );
    await db
      .insert(t.nodeInbounds)
      .values({ nodeId: 1, inboundId: 4, remoteId: 17, remoteTag: 'inbound-20003', pushedHash: 'abc123' });
    await db.insert(t.fallbacks).values([
      { masterId: 1, childId: 2, name: '', alpn: 'h2', path: '/ws', xver: 1, sortOrder: 0 },
      { masterId: 1, childId: 3, name: 'sni.example', alpn: '', path: '', xver: 0, sortOrder: 1 },
    ]);
    await db.insert(t.clientGroups).values([
      { name: 'gold', createdAt: now },
      { name: 'empty group', createdAt: now + 1 },
    ]);
    const rows = Array.from({ length: clients }, (_, i) => ({
      email: `user${i}@example.com`,
      subId: `sub${i % 1000}`,
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      password: `pw${i}`,
      auth: i % 7 === 0 ? `auth${i}` : '',
      flow: i % 5 === 0 ? 'xtls-rprx-vision' : '',
      security: i % 11 === 0 ? 'auto' : '',
      method: '',
      totalGB: i % 4 === 0 ? 0 : (i + 1) * 2 ** 20,
      expiryTime: i % 9 === 0 ? -86_400_000 * 3 : i % 3 === 0 ? 0 : now + i,
      enable: i % 13 !== 0,
      limitIp: i % 4,
      tgId: i % 17 === 0 ? 123_456_789 : 0,
      comment: i % 10 === 0 ? `комментарий ${i}` : '',
      group: i % 6 === 0 ? 'gold' : '',
      reverse: i % 50 === 0 ? JSON.stringify({ tag: `rev-${i}` }) : null,
      reset: i % 8 === 0 ? 30 : 0,
      createdAt: now - i,
      updatedAt: now,
    }));
    await chunks(rows, (r) => db.insert(t.clients).values(r));
    const links = Array.from({ length: clients }, (_, i) => ({ clientId: i + 1, inboundId: 1 + (i % 6) })).concat(
      Array.from({ length: Math.floor(clients / 10) }, (_, i) => ({ clientId: i * 10 + 1, inboundId: 7 })),
    );
    await chunks(links, (r) => db.insert(t.clientInbounds).values(r));
    const traffic = Array.from({ length: clients + 5 }, (_, i) => ({
      email: `user${i}@example.com`,
      up: i * 1_000_003,
      down: 2 ** 35 + i,
      enable: i % 19 !== 0,
      lastOnline: i % 2 ? 1_790_000_000 + i : 0,
    }));
    await chunks(traffic, (r) => db.insert(t.clientTraffics).values(r));
    await db.insert(t.clientTombstones).values({ email: 'gone@example.com', deletedAt: now });
    await db.insert(t.clientIps).values([
      { email: 'user1@example.com', ip: '203.0.113.9', lastSeen: 1_790_000_000 },
      { email: 'user1@example.com', ip: '2001:db8::1', lastSeen: 1_790_000_001 },
    ]);
    await db.insert(t.customGeo).values({
      type: 'geosite',
      alias: 'ru-blocked',
      url: 'https://example.com/ru.dat',
      status: 'ok',
      lastDownload: now,
    });
    await db.insert(t.outboundTraffics).values([
      { tag: 'direct', up: 5, down: 2 ** 41 },
      { tag: 'blocked', up: 0, down: 0 },
    ]);
  });
}

/** Every table's rows in primary-key order, read generically (the table list comes from the schema). */
export async function dumpTables(c: Conn): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const spec of tableSpecs()) {
    const rows: Record<string, unknown>[] = [];
    for await (const page of readTable(c, spec)) rows.push(...page);
    // Byte order of the keys: PostgreSQL pages text keys in its collation's order, SQLite in byte order.
    const key = (r: Record<string, unknown>) => JSON.stringify(spec.pk.map((k) => r[k]));
    out[spec.name] = rows
      .map((r) => [key(r), r] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([, r]) => r);
  }
  return out;
}

/** Row count of every table. */
export async function tableCounts(c: Conn): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const spec of tableSpecs()) {
    const [r] = await c.all<{ n: unknown }>(sql.raw(`SELECT COUNT(*) AS n FROM "${spec.name}"`));
    out[spec.name] = Number(r?.n ?? 0);
  }
  return out;
}
