// Versioned migrations per dialect (storage/migrations/{sqlite,pg}); an applied migration is never edited.
import { fileURLToPath } from 'node:url';
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
