// Versioned migrations per dialect (storage/migrations/{sqlite,pg}); an applied migration is never edited.
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { drizzle as drizzleLibsql } from 'drizzle-orm/libsql';
import { migrate as migrateLibsql } from 'drizzle-orm/libsql/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/postgres-js';
import { migrate as migratePg } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { dialectOf } from './conn.js';

const folder = (dialect: string) => fileURLToPath(new URL(`./migrations/${dialect}`, import.meta.url));

/** Applies every pending migration. Safe to run concurrently with nothing else writing. */
export async function runMigrations(url: string): Promise<void> {
  if (dialectOf(url) === 'pg') {
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migratePg(drizzlePg(client), { migrationsFolder: folder('pg') });
    } finally {
      await client.end({ timeout: 5 });
    }
    return;
  }
  // A dedicated single connection with foreign keys off: the migrator runs every pending migration in one
  // transaction where `PRAGMA foreign_keys=OFF` would be ignored, and a table rebuild would cascade-delete.
  const client = createClient({ url, concurrency: 1, timeout: 5000 } as Parameters<typeof createClient>[0]);
  try {
    await client.execute('PRAGMA foreign_keys=OFF');
    await migrateLibsql(drizzleLibsql(client), { migrationsFolder: folder('sqlite') });
    await client.execute('PRAGMA foreign_keys=ON');
    const broken = await client.execute('PRAGMA foreign_key_check');
    if (broken.rows.length > 0) throw new Error(`migration left ${broken.rows.length} broken foreign keys`);
  } finally {
    client.close();
  }
}

/**
 * The migrations check a new release runs before the panel switches to it (`panel check-migrations`): every
 * migration already applied to the database must be one this build knows, else the build is older than the
 * data and must not run on it. Pending ones are fine: the build applies them when it starts.
 */
export async function checkMigrations(
  url: string,
): Promise<{ applied: number; known: number; pending: number; unknown: number }> {
  const dialect = dialectOf(url) === 'pg' ? 'pg' : 'sqlite';
  const journal = JSON.parse(readFileSync(join(folder(dialect), 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  const known = new Set(journal.entries.map((e) => Number(e.when)));
  let applied: number[] = [];
  if (dialect === 'pg') {
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const [exists] = await client`SELECT to_regclass('drizzle.__drizzle_migrations') AS t`;
      if (exists?.t)
        applied = (await client`SELECT created_at FROM drizzle.__drizzle_migrations`).map((r) => Number(r.created_at));
    } finally {
      await client.end({ timeout: 5 });
    }
  } else {
    const client = createClient({ url });
    try {
      const t = await client.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'",
      );
      if (t.rows.length)
        applied = (await client.execute('SELECT created_at FROM __drizzle_migrations')).rows.map((r) =>
          Number(r.created_at),
        );
    } finally {
      client.close();
    }
  }
  const unknown = applied.filter((w) => !known.has(w)).length;
  const last = applied.length ? Math.max(...applied) : 0;
  return { applied: applied.length, known: known.size, pending: [...known].filter((w) => w > last).length, unknown };
}
