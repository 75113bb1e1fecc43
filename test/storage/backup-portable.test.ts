// The portable backup on both backends: a snapshot taken on one restores on the other with every table equal
// (compared generically, table by table, from the schema's table list), and back again; and the failure cases
// (truncated file, missing table, newer schema, a constraint violation half-way, not a panel file) change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { freshStoreAndConn, testDatabases, type TestDatabase } from '../support/databases.js';
import { dumpTables, seedPanel, tableCounts } from '../support/panel-seed.js';
import { tableSpecs } from '../../storage/copy.js';
import type { Store } from '../../domain/ports/store.js';
import type { Connection } from '../../storage/conn.js';

const dbs = testDatabases();
const byName = (n: string) => dbs.find((d) => d.name === n);
const other = (d: TestDatabase) => (d.name === 'pg' ? byName('libsql')! : (byName('pg') ?? d));

const dir = mkdtempSync(join(tmpdir(), 'panel-portable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withFile(
  data: Uint8Array,
  edit: (sql: (q: string) => Promise<unknown>) => Promise<void>,
): Promise<Uint8Array> {
  const path = join(dir, `edit-${Math.random().toString(36).slice(2)}.db`);
  writeFileSync(path, data);
  const c = createClient({ url: `file:${path}` });
  await edit((q) => c.execute(q));
  c.close();
  return new Uint8Array(readFileSync(path));
}

describe.each(dbs)('portable backup from $name', (db) => {
  const target = other(db);
  let src: { store: Store; conn: Connection };
  let snapshot: Uint8Array;

  beforeAll(async () => {
    src = await freshStoreAndConn(db);
    await seedPanel(src.conn, 10_000);
    snapshot = await src.store.backup.snapshot();
  }, 120_000);
  afterAll(async () => {
    await src.store.close();
    await src.conn.close();
  });

  it('seeds a row in every table (so the comparison below covers them all)', async () => {
    const counts = await tableCounts(src.conn);
    for (const spec of tableSpecs()) expect(counts[spec.name], spec.name).toBeGreaterThan(0);
    expect(counts.clients).toBe(10_000);
  });

  it(`restores on ${target.name} with every table equal, and back again on ${db.name}`, async () => {
    const expected = await dumpTables(src.conn);
    const mid = await freshStoreAndConn(target);
    try {
      const r = await mid.store.backup.restore(snapshot);
      expect(r).toMatchObject({ format: 'panel', skipped: [], tables: tableSpecs().length });
      expect(r.rows).toBe(Object.values(expected).reduce((n, rows) => n + rows.length, 0));
      const there = await dumpTables(mid.conn);
      for (const spec of tableSpecs()) expect(there[spec.name], spec.name).toEqual(expected[spec.name]);
      // New rows get fresh ids after a restore (PostgreSQL's sequences were moved past the copied ids).
      const token = await mid.store.tokens.create({
        name: 'after-restore',
        token: 'tok-new',
        enabled: true,
        createdAt: 1,
      });
      expect(token?.id).toBe(3);

      const back = await freshStoreAndConn(db);
      try {
        await back.store.backup.restore(await mid.store.backup.snapshot());
        const again = await dumpTables(back.conn);
        const midNow = await dumpTables(mid.conn);
        for (const spec of tableSpecs()) expect(again[spec.name], spec.name).toEqual(midNow[spec.name]);
      } finally {
        await back.store.close();
        await back.conn.close();
      }
    } finally {
      await mid.store.close();
      await mid.conn.close();
    }
  }, 180_000);

  describe(`failures change nothing on ${target.name}`, () => {
    let dst: { store: Store; conn: Connection };
    let before: Record<string, Record<string, unknown>[]>;
    beforeAll(async () => {
      dst = await freshStoreAndConn(target);
      await seedPanel(dst.conn, 50);
      before = await dumpTables(dst.conn);
    }, 60_000);
    afterAll(async () => {
      await dst.store.close();
      await dst.conn.close();
    });

    const refused = async (data: Uint8Array, msg: RegExp, expectReplaceStarted = false) => {
      let started = false;
      await expect(
        dst.store.backup.restore(data, {
          beforeReplace: async () => {
            started = true;
          },
        }),
      ).rejects.toThrow(msg);
      expect(started).toBe(expectReplaceStarted);
      expect(await dumpTables(dst.conn)).toEqual(before);
    };

    it('a truncated file', async () => {
      await refused(snapshot.subarray(0, Math.floor(snapshot.length / 2)), /^db: /);
    });
    it('a file with a missing table', async () => {
      await refused(
        await withFile(snapshot, async (q) => {
          await q('DROP TABLE client_traffics');
        }),
        /missing tables: client_traffics/,
      );
    });
    it('a file from a newer schema', async () => {
      const newer = await withFile(snapshot, async (q) => {
        await q(`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', ${Date.UTC(2099, 0, 1)})`);
      });
      await refused(newer, /newer version/);
    });
    it('broken references', async () => {
      const broken = await withFile(snapshot, async (q) => {
        await q('PRAGMA foreign_keys=OFF');
        await q('INSERT INTO client_inbounds (client_id, inbound_id) VALUES (9999, 999999)');
      });
      await refused(broken, /broken foreign keys/);
    });
    it('a constraint violation half-way through the copy (rolled back)', async () => {
      // Without its unique index the file holds two clients with one email: the target refuses the second one
      // after users, settings, inbounds and the first clients are already written.
      const dup = await withFile(snapshot, async (q) => {
        await q('DROP INDEX clients_email_unique');
        await q(`INSERT INTO clients (email, created_at, updated_at) VALUES ('user1@example.com', 1, 1)`);
      });
      await refused(dup, /restore failed, nothing was changed: .*(unique|UNIQUE)/, true);
    });
    it('not a database at all', async () => {
      await refused(new TextEncoder().encode('x'.repeat(4096)), /not a SQLite database/);
    });
  });
});
