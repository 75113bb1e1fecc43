// The aside reader (storage/read-aside.ts): a read-only SQLite connection on a worker thread, and inbounds/get's
// arrays built with one half on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { freshStoreAndConn, testDatabases } from '../support/databases.js';
import { asideReader } from '../../storage/read-aside.js';
import { inboundsRepo } from '../../storage/repos/inbounds.js';
import type { Connection } from '../../storage/conn.js';
import type { Store } from '../../domain/ports/store.js';

const libsql = testDatabases().find((d) => d.name === 'libsql')!;

describe('aside reader on a SQLite file', () => {
  let store: Store;
  let conn: Connection;
  beforeAll(async () => {
    ({ store, conn } = await freshStoreAndConn(libsql));
  });
  afterAll(async () => {
    await store.close();
    await conn.close();
  });

  it('exists for file databases only', () => {
    expect(asideReader(':memory:')).toBeNull();
    expect(asideReader('file::memory:')).toBeNull();
    expect(asideReader('libsql://example.turso.io')).toBeNull();
    expect(conn.readAside).toBeTypeOf('function');
  });

  it('reads what the main connection committed, with arguments, as rows keyed by column', async () => {
    await conn.exec(sql`INSERT INTO settings (key, value) VALUES ('aside-a', 'one'), ('aside-b', 'two')`);
    const rows = await conn.readAside!('SELECT key, value FROM settings WHERE key LIKE ? ORDER BY key', ['aside-%']);
    expect(rows).toEqual([
      { key: 'aside-a', value: 'one' },
      { key: 'aside-b', value: 'two' },
    ]);
    await conn.exec(sql`UPDATE settings SET value = 'three' WHERE key = 'aside-a'`);
    expect(await conn.readAside!('SELECT value FROM settings WHERE key = ?', ['aside-a'])).toEqual([
      { value: 'three' },
    ]);
  });

  it('refuses writes and reports SQL errors, then keeps working', async () => {
    await expect(conn.readAside!("INSERT INTO settings (key, value) VALUES ('aside-w', 'x')", [])).rejects.toThrow(
      /readonly|read-only|query_only/i,
    );
    await expect(conn.readAside!('SELECT nope FROM nowhere', [])).rejects.toThrow(/nowhere|no such table/);
    expect(await conn.readAside!('SELECT 1 + ? AS n', [41])).toEqual([{ n: 42 }]);
    expect(await conn.all(sql`SELECT value FROM settings WHERE key = 'aside-w'`)).toEqual([]);
  });

  it('a large inbound gives the same arrays with the worker, without it, and when the worker fails', async () => {
    const ib = (await store.inbounds.create({
      userId: 1,
      total: 0,
      remark: 'aside',
      enable: true,
      expiryTime: 0,
      listen: '',
      port: 41999,
      protocol: 'vless',
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp' },
      sniffing: {},
      tag: 'aside-in',
      nodeId: null,
    }))!.id;
    await store.clients.insertMany(
      Array.from({ length: 2500 }, (_, i) => ({
        row: {
          email: `aside-${i}@x`,
          subId: `s${i}`,
          uuid: `u${i}`,
          password: '',
          auth: '',
          flow: '',
          security: '',
          method: '',
          totalGB: i,
          expiryTime: 0,
          enable: i % 3 !== 0,
          limitIp: 0,
          tgId: 0,
          comment: i === 1250 ? 'middle "quoted"' : '',
          group: '',
          reverse: null,
          reset: 0,
          createdAt: 1,
          updatedAt: 2,
        },
        inboundIds: [ib],
      })),
    );
    const project = { protocol: 'vless' as const, flowEligible: false };
    let asideCalls = 0;
    const counting: Connection = {
      ...conn,
      readAside: (q, a) => {
        asideCalls++;
        return conn.readAside!(q, a);
      },
    };
    const withWorker = await inboundsRepo(counting).attachedJson(ib, project);
    expect(asideCalls).toBe(1);
    const alone = await inboundsRepo({ ...conn, readAside: null }).attachedJson(ib, project);
    const failing = await inboundsRepo({
      ...conn,
      readAside: async () => {
        throw new Error('worker gone');
      },
    }).attachedJson(ib, project);
    expect(withWorker).toEqual(alone);
    expect(failing).toEqual(alone);
    const clients = JSON.parse(alone.clients!) as { email: string; comment: string }[];
    const stats = JSON.parse(alone.stats) as { email: string; total: number }[];
    expect(clients.map((x) => x.email)).toEqual(Array.from({ length: 2500 }, (_, i) => `aside-${i}@x`));
    expect(stats.map((x) => x.email)).toEqual(clients.map((x) => x.email));
    expect(clients[1250]!.comment).toBe('middle "quoted"');
    expect(stats[2499]!.total).toBe(2499);
  });
});
