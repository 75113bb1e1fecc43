// `panel db export | import | copy` through the BUILT command-line tool, as an operator runs it: a file panel
// exported, copied to PostgreSQL (refused there once it holds data, unless --force) and back to a file, and a
// snapshot imported into a PostgreSQL panel; every table compared after each step.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../support/databases.js';
import { dumpTables, seedPanel } from '../support/panel-seed.js';
import { connect } from '../../storage/conn.js';
import { runMigrations } from '../../storage/migrate.js';
import { tableSpecs } from '../../storage/copy.js';
import { buildXuiDb } from '../support/xui-fixture.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/adapters/node/cli.js');
const pg = testDatabases().find((d) => d.name === 'pg');
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'panel-dbcli-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function cli(args: string[], vars: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...vars };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

async function tables(url: string) {
  const c = await connect(url);
  try {
    return await dumpTables(c);
  } finally {
    await c.close();
  }
}

function expectSame(got: Record<string, unknown[]>, want: Record<string, unknown[]>) {
  for (const name of Object.keys(want)) expect(got[name], name).toEqual(want[name]);
}

describe('panel db (built CLI)', () => {
  it('export, copy to another database (refused when it has data, --force), import; every table equal', async () => {
    const dataDir = tempDir();
    const fileUrl = `file:${join(dataDir, 'panel.db')}`;
    await runMigrations(fileUrl);
    const seed = await connect(fileUrl);
    await seedPanel(seed, 3000);
    await seed.close();
    const fileEnv = { PANEL_DATA_DIR: dataDir };

    // export
    const out = join(tempDir(), 'panel-export.db');
    const exp = await cli(['db', 'export', out], fileEnv);
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stdout).toContain(`written to ${out}`);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(out).subarray(0, 15).toString()).toBe('SQLite format 3');
    const again = await cli(['db', 'export', out], fileEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists/);
    // (the CLI's first open stored a session secret, as the panel's first start does)
    const original = await tables(fileUrl);
    expectSame(await tables(`file:${out}`), original);

    // copy to another database (PostgreSQL when configured), with progress lines
    const targetUrl = pg ? await pg.freshUrl() : `file:${join(tempDir(), 'copy.db')}`;
    const copy = await cli(['db', 'copy', '--to', targetUrl], { ...fileEnv, PANEL_DB_COPY_PROGRESS_MS: '0' });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).toMatch(/^copying: \d+\/\d+ rows \(\d+%, table \w+\)$/m);
    expect(copy.stdout).toMatch(new RegExp(`copied \\d+ rows in ${tableSpecs().length} tables`)); // every table
    expectSame(await tables(targetUrl), original);

    const refused = await cli(['db', 'copy', '--to', targetUrl], fileEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already holds panel data \(\d+ rows\); add --force/);
    const forced = await cli(['db', 'copy', '--to', targetUrl, '--force'], fileEnv);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/replacing \d+ rows/);
    expectSame(await tables(targetUrl), original);

    // import the export into a panel on the other database (it has its own admin already)
    const otherDir = tempDir();
    const otherUrl = pg ? await pg.freshUrl() : `file:${join(otherDir, 'panel.db')}`;
    const otherEnv = { PANEL_DATA_DIR: otherDir, PANEL_DB_URL: otherUrl };
    expect((await cli(['admin', '--username', 'someone', '--password', 'a long password 1'], otherEnv)).code).toBe(0);
    const imp = await cli(['db', 'import', out], otherEnv);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toMatch(/imported \d+ rows into/);
    const kept = readdirSync(join(otherDir, 'backups'));
    expect(kept).toHaveLength(1);
    expect(statSync(join(otherDir, 'backups', kept[0]!)).mode & 0o777).toBe(0o600);
    expectSame(await tables(otherUrl), original);

    // and from there back to a file
    const backUrl = `file:${join(tempDir(), 'back.db')}`;
    const back = await cli(['db', 'copy', '--to', backUrl], otherEnv);
    expect(back.code, back.stderr).toBe(0);
    expectSame(await tables(backUrl), original);
    expect(statSync(backUrl.slice(5)).mode & 0o777).toBe(0o600);

    // a 3x-ui database: converted, what was left out listed, the new admin password printed once
    const xui = join(tempDir(), 'x-ui.db');
    await buildXuiDb(xui, {
      version: 'v2',
      ports: [46001, 46002, 46003, 46004],
      certFile: '/nonexistent.pem',
      keyFile: '/nonexistent.key',
    });
    const conv = await cli(['db', 'import', xui], otherEnv);
    expect(conv.code, conv.stderr).toBe(0);
    expect(conv.stdout).toMatch(/converted from a 3x-ui database/);
    expect(conv.stdout).toMatch(/^converted: inbounds 4, clients 7, /m);
    expect(conv.stdout).toMatch(/^not converted: inbound 5 \(tun device, port 0\): protocol tun has no counterpart/m);
    const pw = /^the admin password was reset \(shown once\): ([A-Za-z0-9]{20})$/m.exec(conv.stdout)?.[1];
    expect(pw).toBeTruthy();
    expect(readdirSync(join(otherDir, 'backups'))).toHaveLength(2);

    const bad = await cli(['db', 'import', join(dataDir, 'missing.db')], fileEnv);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/cannot read/);
    expect(existsSync(join(dataDir, 'backups'))).toBe(false);
  });
});
