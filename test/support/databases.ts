// The databases every storage and handler suite runs on: libsql always, PostgreSQL when PANEL_TEST_PG_URL is
// set (a fresh database per call, dropped at process exit). With CI=true a missing PostgreSQL fails the run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openStore } from '../../storage/store.js';
import { connect, type Connection } from '../../storage/conn.js';
import type { Store } from '../../domain/ports/store.js';

export interface TestDatabase {
  name: 'libsql' | 'pg';
  /** A fresh, migrated, empty database URL. */
  freshUrl(): Promise<string>;
}

const pgBase = process.env.PANEL_TEST_PG_URL;
if (!pgBase && process.env.CI === 'true') {
  throw new Error('CI=true but PANEL_TEST_PG_URL is unset: the PostgreSQL half of the suites cannot be skipped');
}
let warned = false;

const libsql: TestDatabase = {
  name: 'libsql',
  async freshUrl() {
    const dir = mkdtempSync(join(tmpdir(), 'panel-test-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return `file:${join(dir, 'panel.db')}`;
  },
};

let dbCounter = 0;
// Set by the global setup: names this run's databases so that teardown drops only them, and runs in other
// checkouts on the same server keep theirs.
const runId = () => process.env.PANEL_TEST_RUN_ID ?? String(process.pid);
const pg: TestDatabase = {
  name: 'pg',
  async freshUrl() {
    const name = `panel_test_${runId()}_${process.pid}_${dbCounter++}`;
    const admin = postgres(pgBase!, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end({ timeout: 5 });
    }
    const url = new URL(pgBase!);
    url.pathname = `/${name}`;
    return url.toString();
  },
};

/** libsql, plus PostgreSQL when configured (printing one line when it is skipped). */
export function testDatabases(): TestDatabase[] {
  if (!pgBase && !warned) {
    warned = true;
    console.log('PANEL_TEST_PG_URL is unset: skipping the PostgreSQL half of the storage and API suites');
  }
  return pgBase ? [libsql, pg] : [libsql];
}

/** A fresh migrated store on the given database. Close it in afterAll/afterEach. */
export async function freshStore(db: TestDatabase): Promise<Store> {
  return openStore(await db.freshUrl());
}

/** Drops the test databases this run created (call from a globalTeardown). */
export async function dropTestDatabases(): Promise<void> {
  if (!pgBase) return;
  const prefix = `panel_test_${runId()}_`;
  const admin = postgres(pgBase, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin`SELECT datname FROM pg_database WHERE starts_with(datname, ${prefix})`;
    for (const r of rows) await admin.unsafe(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** A fresh migrated store plus a raw connection to the same database (for seeding and inspecting with SQL). */
export async function freshStoreAndConn(db: TestDatabase): Promise<{ store: Store; conn: Connection }> {
  const url = await db.freshUrl();
  return { store: await openStore(url), conn: await connect(url) };
}
