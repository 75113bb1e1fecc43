// The clients storage contract on libsql and PostgreSQL: writes, the catalog reads of the paged list
// (catalogRows, catalogBatch, slim), and on PostgreSQL the migrations that shape the clients table.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { drizzle as drizzlePg } from 'drizzle-orm/postgres-js';
import { migrate as migratePg } from 'drizzle-orm/postgres-js/migrator';
import { freshStore, freshStoreAndConn, testDatabases } from '../support/databases.js';
import type { Store } from '../../domain/ports/store.js';
import type { ClientListRow, ClientWrite } from '../../domain/clients/model.js';
import type { CatalogRow } from '../../domain/clients/catalog.js';
import type { InboundWrite } from '../../domain/inbounds/model.js';
import type { Connection } from '../../storage/conn.js';
import { runMigrations } from '../../storage/migrate.js';

const client = (email: string, extra: Partial<ClientWrite> = {}): ClientWrite => ({
  email,
  subId: `s-${email}`,
  uuid: `u-${email}`,
  password: '',
  auth: '',
  flow: '',
  security: '',
  method: '',
  totalGB: 0,
  expiryTime: 0,
  enable: true,
  limitIp: 0,
  tgId: 0,
  comment: '',
  group: '',
  reverse: null,
  reset: 0,
  createdAt: 1,
  updatedAt: 1,
  ...extra,
});

const inbound = (port: number, extra: Partial<InboundWrite> = {}): InboundWrite => ({
  userId: 1,
  total: 0,
  remark: `r${port}`,
  enable: true,
  expiryTime: 0,
  listen: '',
  port,
  protocol: 'vless',
  settings: { decryption: 'none', clients: [{ email: 'never stored' }] },
  streamSettings: { network: 'tcp' },
  sniffing: {},
  tag: `inbound-${port}`,
  nodeId: null,
  ...extra,
});

describe.each(testDatabases())('clients and inbounds storage on $name', (db) => {
  let store: Store;
  let A = 0;
  let B = 0;
  beforeAll(async () => {
    store = await freshStore(db);
    A = (await store.inbounds.create(inbound(1001)))!.id;
    B = (await store.inbounds.create(inbound(1002, { protocol: 'trojan' })))!.id;
  });
  afterAll(async () => {
    await store.close();
  });

  it('inbound settings never store clients; tags are unique', async () => {
    const ib = await store.inbounds.byId(A);
    expect(ib!.settings).toEqual({ decryption: 'none' });
    expect(await store.inbounds.create(inbound(1003, { tag: 'inbound-1001' }))).toBeNull();
    expect(await store.inbounds.tagTaken('inbound-1001')).toBe(true);
    expect(await store.inbounds.tagTaken('inbound-1001', A)).toBe(false);
  });

  it('insertMany: chunked, one transaction, taken emails reported, attachments and counters created', async () => {
    const items = Array.from({ length: 1200 }, (_, i) => ({
      row: client(`m${i}@x`, { reverse: i === 0 ? { tag: 'rv' } : null }),
      inboundIds: [A, B],
    }));
    const first = await store.clients.insertMany(items);
    expect(first.created).toHaveLength(1200);
    expect(first.taken).toEqual([]);
    const again = await store.clients.insertMany([
      { row: client('m5@x'), inboundIds: [A] },
      { row: client('fresh@x'), inboundIds: [A] },
    ]);
    expect(again).toEqual({ created: ['fresh@x'], taken: ['m5@x'] });
    const m0 = await store.clients.detail('m0@x');
    expect(m0).toMatchObject({
      email: 'm0@x',
      uuid: 'u-m0@x',
      reverse: { tag: 'rv' },
      inboundIds: [A, B],
      traffic: { up: 0, down: 0, enable: true },
    });
    const rows = await store.inbounds.attachedClients([A]);
    expect(rows).toHaveLength(1201);
    expect(rows[0]).toMatchObject({
      inboundId: A,
      up: 0,
      trafficEnable: true,
      client: { email: 'm0@x', enable: true, reverse: { tag: 'rv' } },
    });
    expect(typeof rows[0]!.client.id).toBe('number');
  });

  it('insert refuses a taken email and clears a tombstone', async () => {
    expect(await store.clients.insert(client('m1@x'), [A])).toBeNull();
    expect(await store.clients.remove(['fresh@x'], true, 5)).toEqual(['fresh@x']);
    expect(await store.clients.isTombstoned('fresh@x')).toBe(true);
    expect(await store.clients.insert(client('fresh@x'), [B])).not.toBeNull();
    expect(await store.clients.isTombstoned('fresh@x')).toBe(false);
  });

  it('replace can rename; counters follow; enable clears the auto-disable flag', async () => {
    const c = (await store.clients.byEmail('m2@x'))!;
    await store.traffic.applyDeltas(
      { clients: [{ email: 'm2@x', up: 3, down: 4 }], inbounds: [], outbounds: [] },
      1_000_000,
    );
    const { id: _id, ...row } = c;
    expect(await store.clients.replace(c.id, 'm2@x', { ...row, email: 'm3@x' })).toEqual({ outcome: 'email-taken' });
    const r = await store.clients.replace(c.id, 'm2@x', { ...row, email: 'renamed@x', comment: 'c' });
    expect(r).toMatchObject({ outcome: 'ok', traffic: { up: 3, down: 4, enable: true } });
    expect(await store.clients.byEmail('m2@x')).toBeNull();
    expect(await store.clients.traffic('renamed@x')).toMatchObject({ up: 3, down: 4 });
    expect(await store.clients.replace(999_999, 'x', { ...row, email: 'zz@x' })).toEqual({ outcome: 'missing' });
  });

  it('remove drops attachments, IPs and counters unless kept, and tombstones', async () => {
    await store.traffic.recordIps([{ email: 'm4@x', ip: '192.0.2.1' }], 100);
    expect(await store.clients.remove(['m4@x', 'ghost@x'], false, 9)).toEqual(['m4@x']);
    expect(await store.clients.ips('m4@x')).toEqual([]);
    expect(await store.clients.traffic('m4@x')).toBeNull();
    expect((await store.inbounds.attachedClients([A])).some((r) => r.client.email === 'm4@x')).toBe(false);
    expect(await store.clients.isTombstoned('m4@x')).toBe(true);
  });

  it('remove returns the deleted emails in the order given (not the order the rows were visited in)', async () => {
    for (const e of ['ord1@x', 'ord2@x', 'ord3@x']) await store.clients.insert(client(e), [A]);
    expect(await store.clients.remove(['ord3@x', 'missing@x', 'ord1@x', 'ord2@x', 'ord3@x'], false, 5)).toEqual([
      'ord3@x',
      'ord1@x',
      'ord2@x',
    ]);
  });

  it('deleting an inbound detaches clients and keeps them', async () => {
    const C = (await store.inbounds.create(inbound(1009)))!.id;
    await store.clients.attach((await store.clients.byEmail('m6@x'))!.id, [C]);
    expect(await store.inbounds.remove(C)).toBe(true);
    expect((await store.clients.detail('m6@x'))!.inboundIds).toEqual([A, B]);
  });

  it('groups: merged list with counts, rename merges, delete clears', async () => {
    await store.clients.setGroup(['m7@x', 'm8@x'], 'One', 2);
    await store.groups.create('Empty', 2);
    expect(await store.groups.create('One', 2)).toBe(false);
    const list = await store.groups.list();
    expect(list).toEqual([
      { name: 'Empty', clientCount: 0 },
      { name: 'One', clientCount: 2 },
    ]);
    expect(await store.groups.rename('One', 'Empty', 3)).toEqual(expect.arrayContaining(['m7@x', 'm8@x']));
    expect(await store.groups.list()).toEqual([{ name: 'Empty', clientCount: 2 }]);
    expect((await store.groups.remove('Empty', 4)).sort()).toEqual(['m7@x', 'm8@x']);
    expect(await store.groups.list()).toEqual([]);
  });

  it('fallbacks are replaced atomically and cascade with the inbound', async () => {
    const M = (await store.inbounds.create(inbound(1010)))!.id;
    const K = (await store.inbounds.create(inbound(1011)))!.id;
    const saved = await store.inbounds.replaceFallbacks(M, [
      { childId: K, name: 'a', alpn: '', path: '/p', xver: 1, sortOrder: 2 },
    ]);
    expect(saved).toMatchObject([{ masterId: M, childId: K, name: 'a', path: '/p', xver: 1, sortOrder: 2 }]);
    await store.inbounds.remove(K);
    expect(await store.inbounds.fallbacks(M)).toEqual([]);
  });
});

describe.each(testDatabases())('catalog reads (catalogRows, catalogBatch, slim) on $name', (db) => {
  const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
  const NOW_SEC = Math.floor(NOW / 1000);
  const DAY = 86_400_000;
  // More clients than one catalogBatch reads on either database (2,000 ids on SQLite, 10,000 on PostgreSQL), and
  // more emails than catalogRows puts in one statement (2,000).
  const BULK = 10_050;
  const bulkEmail = (i: number) => `bulk${i}@x`;
  /** Removed before the reads: ids 1 and 2 (the walk from id 1 starts in a gap) and one in the middle. */
  const REMOVED = [bulkEmail(0), bulkEmail(1), bulkEmail(5000)];
  let store: Store;
  let conn: Connection;
  let A = 0;
  let B = 0;
  let C = 0;
  const id: Record<string, number> = {};
  /** Every live client's catalog row as the fixture defines it, by email. */
  const expected = new Map<string, CatalogRow>();
  const byId = (rows: CatalogRow[]) => [...rows].sort((x, y) => x.id - y.id);

  beforeAll(async () => {
    ({ store, conn } = await freshStoreAndConn(db));
    A = (await store.inbounds.create(inbound(2001)))!.id;
    B = (await store.inbounds.create(inbound(2002)))!.id;
    C = (await store.inbounds.create(inbound(2003)))!.id;

    const bulk = Array.from({ length: BULK }, (_, i) => ({
      row: client(bulkEmail(i), {
        subId: `bulk-sub-${i}`,
        comment: `c${i % 7}`,
        group: i % 2 ? 'odd' : '',
        totalGB: i,
        expiryTime: i % 5 ? 0 : NOW + DAY + i,
      }),
      inboundIds: i % 3 ? [A] : [B, A],
    }));
    expect((await store.clients.insertMany(bulk)).created).toHaveLength(BULK);
    for (const r of await store.clients.byEmails(bulk.map((x) => x.row.email))) id[r.email] = r.id;
    bulk.forEach(({ row }, i) =>
      expected.set(row.email, {
        id: id[row.email]!,
        email: row.email,
        subId: row.subId,
        comment: row.comment,
        group: row.group,
        enable: true,
        totalGB: i,
        expiryTime: i % 5 ? 0 : NOW + DAY + i,
        used: 0,
        trafficEnable: true,
        lastOnline: 0,
        inboundIds: i % 3 ? [A] : [A, B],
      }),
    );

    const named: [string, Partial<ClientWrite>, number[]][] = [
      [
        'cat-full@x',
        { subId: 'sub-full', comment: 'Note', group: 'G1', totalGB: 1000, expiryTime: NOW + DAY },
        [C, A, B],
      ],
      ['cat-bare@x', {}, []],
      ['cat-off@x', { enable: false }, [B]],
      ['cat-quota@x', { totalGB: 100 }, [A]],
      ['cat-expired@x', { expiryTime: NOW - 1000 }, [A]],
      ['cat-direct@x', {}, [B]],
      ['cat-kept@x', {}, [A]],
    ];
    for (const [email, extra, inboundIds] of named)
      id[email] = (await store.clients.insert(client(email, extra), inboundIds))!.id;
    await store.traffic.applyDeltas(
      {
        clients: [
          { email: 'cat-full@x', up: 300, down: 200 },
          { email: 'cat-quota@x', up: 60, down: 50 },
        ],
        inbounds: [],
        outbounds: [],
      },
      NOW,
    );
    // Auto-disabled by the panel: over quota and expired (enforce sets clients.enable and client_traffics.enable
    // false).
    expect((await store.traffic.enforce(NOW, ['cat-quota@x'])).depleted.sort()).toEqual([
      'cat-expired@x',
      'cat-quota@x',
    ]);
    // Auto-disabled flag written directly, counters set absolutely.
    expect(await store.clients.setTraffic('cat-direct@x', 5, 2)).toBe(true);
    await conn.write((d) =>
      d.update(conn.t.clientTraffics).set({ enable: false }).where(eq(conn.t.clientTraffics.email, 'cat-direct@x')),
    );
    await conn.write((d) =>
      d.update(conn.t.clients).set({ enable: false }).where(eq(conn.t.clients.email, 'cat-direct@x')),
    );
    // No counters row at all.
    await conn.write((d) => d.delete(conn.t.clientTraffics).where(eq(conn.t.clientTraffics.email, 'cat-bare@x')));
    // Gone clients: their counters row kept (keepTraffic) or dropped.
    expect(await store.clients.remove(['cat-kept@x'], true, NOW)).toEqual(['cat-kept@x']);
    expect(await store.clients.remove(REMOVED, false, NOW)).toEqual(REMOVED);
    for (const email of [...REMOVED, 'cat-kept@x']) expected.delete(email);

    const row = (email: string, r: Omit<CatalogRow, 'id' | 'email'>): void => {
      expected.set(email, { id: id[email]!, email, ...r });
    };
    row('cat-full@x', {
      subId: 'sub-full',
      comment: 'Note',
      group: 'G1',
      enable: true,
      totalGB: 1000,
      expiryTime: NOW + DAY,
      used: 500,
      trafficEnable: true,
      lastOnline: NOW_SEC,
      inboundIds: [A, B, C],
    });
    row('cat-bare@x', {
      subId: 's-cat-bare@x',
      comment: '',
      group: '',
      enable: true,
      totalGB: 0,
      expiryTime: 0,
      used: 0,
      trafficEnable: true,
      lastOnline: 0,
      inboundIds: [],
    });
    row('cat-off@x', {
      subId: 's-cat-off@x',
      comment: '',
      group: '',
      enable: false,
      totalGB: 0,
      expiryTime: 0,
      used: 0,
      trafficEnable: true,
      lastOnline: 0,
      inboundIds: [B],
    });
    row('cat-quota@x', {
      subId: 's-cat-quota@x',
      comment: '',
      group: '',
      enable: false,
      totalGB: 100,
      expiryTime: 0,
      used: 110,
      trafficEnable: false,
      lastOnline: NOW_SEC,
      inboundIds: [A],
    });
    row('cat-expired@x', {
      subId: 's-cat-expired@x',
      comment: '',
      group: '',
      enable: false,
      totalGB: 0,
      expiryTime: NOW - 1000,
      used: 0,
      trafficEnable: false,
      lastOnline: 0,
      inboundIds: [A],
    });
    row('cat-direct@x', {
      subId: 's-cat-direct@x',
      comment: '',
      group: '',
      enable: false,
      totalGB: 0,
      expiryTime: 0,
      used: 7,
      trafficEnable: false,
      lastOnline: 0,
      inboundIds: [B],
    });
  });
  afterAll(async () => {
    await store.close();
    await conn.close();
  });

  const NAMED = ['cat-full@x', 'cat-bare@x', 'cat-off@x', 'cat-quota@x', 'cat-expired@x', 'cat-direct@x'];

  it('catalogRows: exact rows (counters or none, operator- and auto-disabled, attachments ascending or none); no row for unknown or gone emails', async () => {
    const rows = await store.clients.catalogRows([...NAMED, 'nobody@x', 'cat-kept@x', REMOVED[0]!, 'cat-full@x']);
    expect(byId(rows)).toEqual(NAMED.map((e) => expected.get(e)!));
    expect(await store.clients.catalogRows(['nobody@x', 'cat-kept@x'])).toEqual([]);
    expect(await store.clients.catalogRows([])).toEqual([]);
  });

  it('catalogRows: more emails than one statement takes (> 2,000) give every row once', async () => {
    const emails = [...Array.from({ length: BULK }, (_, i) => bulkEmail(i)), 'nobody@x'];
    const rows = await store.clients.catalogRows(emails);
    const want = emails.map((e) => expected.get(e)).filter((r): r is CatalogRow => !!r);
    expect(want).toHaveLength(BULK - REMOVED.length);
    expect(byId(rows)).toEqual(byId(want));
  });

  it('catalogBatch: walked from id 1 via next, batches in id order cover every client once, with the rows catalogRows gives', async () => {
    const batches: { from: number; rows: CatalogRow[]; next: number | null }[] = [];
    for (let from: number | null = 1; from !== null;) {
      const batch = await store.clients.catalogBatch(from);
      batches.push({ from, ...batch });
      from = batch.next;
    }
    expect(batches.length).toBeGreaterThan(1);
    for (const { from, rows, next } of batches) {
      const ids = rows.map((r) => r.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(ids.every((i) => i >= from && (next === null || i < next))).toBe(true);
      if (next !== null) expect(next).toBeGreaterThan(from);
    }
    const walked = batches.flatMap((x) => x.rows);
    // every live client once, in id order, equal to the fixture and to catalogRows of the same emails
    expect(walked).toEqual(byId([...expected.values()]));
    expect(walked.map((r) => r.id)).toEqual((await store.clients.listDetails()).map((r) => r.id).sort((x, y) => x - y));
    expect(walked).toEqual(byId(await store.clients.catalogRows(walked.map((r) => r.email))));
  });

  it('catalogBatch: the batch holding the max id ends the walk; a batch past it is empty with next null', async () => {
    const maxId = Math.max(...[...expected.values()].map((r) => r.id));
    const last = await store.clients.catalogBatch(maxId);
    expect(last).toEqual({ rows: [expected.get('cat-direct@x')], next: null });
    expect(await store.clients.catalogBatch(maxId + 1)).toEqual({ rows: [], next: null });
    expect(await store.clients.catalogBatch(maxId + 1_000_000)).toEqual({ rows: [], next: null });
  });

  it('slim: rows in the order of the ids given, unknown ids left out, no secrets, traffic and attachments included', async () => {
    const secretId = (await store.clients.insert(
      client('slim@x', {
        uuid: 'secret-uuid',
        password: 'secret-password',
        auth: 'secret-auth',
        flow: 'xtls-rprx-vision',
        security: 'auto',
        method: 'aes',
        tgId: 42,
        reverse: { tag: 'secret-tag' },
        limitIp: 3,
        reset: 30,
        comment: 'hello',
        group: 'G2',
        createdAt: 10,
        updatedAt: 20,
      }),
      [C, A],
    ))!.id;
    await store.traffic.applyDeltas(
      { clients: [{ email: 'slim@x', up: 11, down: 22 }], inbounds: [], outbounds: [] },
      NOW,
    );
    const rows = await store.clients.listRows([
      secretId,
      999_999,
      id['cat-bare@x']!,
      id[REMOVED[0]!]!,
      id['cat-full@x']!,
    ]);
    const want: ClientListRow[] = [
      {
        email: 'slim@x',
        subId: 's-slim@x',
        enable: true,
        totalGB: 0,
        expiryTime: 0,
        limitIp: 3,
        reset: 30,
        comment: 'hello',
        group: 'G2',
        inboundIds: [A, C],
        traffic: { up: 11, down: 22, enable: true, lastOnline: NOW_SEC },
        createdAt: 10,
        updatedAt: 20,
      },
      {
        email: 'cat-bare@x',
        subId: 's-cat-bare@x',
        enable: true,
        totalGB: 0,
        expiryTime: 0,
        limitIp: 0,
        reset: 0,
        comment: '',
        group: '',
        inboundIds: [],
        traffic: { up: 0, down: 0, enable: true, lastOnline: 0 },
        createdAt: 1,
        updatedAt: 1,
      },
      {
        email: 'cat-full@x',
        subId: 'sub-full',
        enable: true,
        totalGB: 1000,
        expiryTime: NOW + DAY,
        limitIp: 0,
        reset: 0,
        comment: 'Note',
        group: 'G1',
        inboundIds: [A, B, C],
        traffic: { up: 300, down: 200, enable: true, lastOnline: NOW_SEC },
        createdAt: 1,
        updatedAt: 1,
      },
    ];
    expect(rows).toEqual(want);
    expect(Object.keys(rows[0]!).sort()).toEqual(Object.keys(want[0]!).sort());
    expect(JSON.stringify(rows)).not.toMatch(/secret|xtls|"uuid"|"password"|"auth"|"tgId"|"reverse"/);
    // the reverse order gives the reverse rows
    expect((await store.clients.listRows([id['cat-full@x']!, secretId])).map((r) => r.email)).toEqual([
      'cat-full@x',
      'slim@x',
    ]);
    expect(await store.clients.listRows([])).toEqual([]);
  });
});

describe.each(testDatabases().filter((d) => d.name === 'pg'))('clients table migrations on $name', (db) => {
  const migrationsDir = fileURLToPath(new URL('../../storage/migrations/pg', import.meta.url));
  const journal = JSON.parse(readFileSync(join(migrationsDir, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  const columnsOf = async (sqlc: postgres.Sql, table: string) =>
    (
      await sqlc<
        { column_name: string }[]
      >`SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table}`
    ).map((r) => r.column_name);

  it('a fresh database gets every migration and no clients.search_text (dropped by 0003)', async () => {
    const url = await db.freshUrl();
    await runMigrations(url);
    const sqlc = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const cols = await columnsOf(sqlc, 'clients');
      expect(cols).toContain('email');
      expect(cols).not.toContain('search_text');
      const [applied] = await sqlc<{ n: string }[]>`SELECT COUNT(*) AS n FROM drizzle.__drizzle_migrations`;
      expect(Number(applied!.n)).toBe(journal.entries.length);
    } finally {
      await sqlc.end({ timeout: 5 });
    }
  });

  it('a group rename rewrites its clients without a new index entry (HOT: fillfactor 50, group_name unindexed, 0005)', async () => {
    const { store, conn } = await freshStoreAndConn(db);
    try {
      const [opts] = await conn.all<{ reloptions: string[] | null }>(
        sql`SELECT reloptions FROM pg_class WHERE relname = 'clients'`,
      );
      expect(opts!.reloptions).toContain('fillfactor=50');
      const indexes = async () =>
        conn.all<{ name: string; def: string; bytes: string }>(sql`SELECT indexname AS name, indexdef AS def,
        pg_relation_size(indexname::regclass)::text AS bytes FROM pg_indexes WHERE tablename = 'clients' ORDER BY indexname`);
      expect((await indexes()).filter((i) => i.def.includes('group_name'))).toEqual([]);
      const ib = (await store.inbounds.create(inbound(1101)))!.id;
      // Every client in the group, so every row of every page is rewritten (the case that needs half of each page
      // free).
      await store.clients.insertMany(
        Array.from({ length: 3000 }, (_, i) => ({ row: client(`h${i}@x`, { group: 'old' }), inboundIds: [ib] })),
      );
      const before = await indexes();
      expect(await store.groups.rename('old', 'new', 5)).toHaveLength(3000);
      // A rewrite that is not HOT enters each new row version in every index: 3,000 entries grow each of them.
      expect(await indexes()).toEqual(before);
      expect(await store.groups.list()).toEqual([{ name: 'new', clientCount: 3000 }]);
      expect(await store.groups.remove('new', 6)).toHaveLength(3000);
      expect(await indexes()).toEqual(before);
    } finally {
      await store.close();
      await conn.close();
    }
  });

  it('upgrading a database migrated up to 0002 drops search_text and keeps the clients', async () => {
    const upTo = journal.entries.findIndex((e) => e.tag === '0002_clients_search_text');
    expect(upTo).toBeGreaterThanOrEqual(0);
    // The migrations folder as it was before 0003: the same files, the journal cut after 0002.
    const dir = mkdtempSync(join(tmpdir(), 'panel-migrations-'));
    const url = await db.freshUrl();
    const sqlc = postgres(url, { max: 1, onnotice: () => {} });
    try {
      cpSync(migrationsDir, dir, { recursive: true });
      writeFileSync(
        join(dir, 'meta/_journal.json'),
        JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo + 1) }),
      );
      await migratePg(drizzlePg(sqlc), { migrationsFolder: dir });
      expect(await columnsOf(sqlc, 'clients')).toContain('search_text');
      await sqlc`INSERT INTO clients (email, sub_id, comment, created_at, updated_at) VALUES ('up@x', 'Sub', 'Note', 1, 1)`;

      await runMigrations(url);
      expect(await columnsOf(sqlc, 'clients')).not.toContain('search_text');
      expect([...(await sqlc`SELECT email, sub_id, comment FROM clients`)]).toEqual([
        { email: 'up@x', sub_id: 'Sub', comment: 'Note' },
      ]);
      // applying again changes nothing
      await runMigrations(url);
      const [applied] = await sqlc<{ n: string }[]>`SELECT COUNT(*) AS n FROM drizzle.__drizzle_migrations`;
      expect(Number(applied!.n)).toBe(journal.entries.length);
    } finally {
      await sqlc.end({ timeout: 5 });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
