// Everything under PANEL_DATA_DIR is the panel user's only (directory 0700, files 0600), whatever the umask the
// panel is started with: on a fresh data directory, on one left world-readable by an older version, after a
// backup, after an import, and for the command-line tool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, killAll, startPanel, type Panel } from './support/index.js';

const CLI = fileURLToPath(new URL('../../dist/adapters/node/cli.js', import.meta.url));

/** Every path under `dir` (itself included) whose mode lets anyone but the owner in, with its mode. */
function looseModes(dir: string): string[] {
  const loose: string[] = [];
  const visit = (path: string) => {
    const st = statSync(path);
    if ((st.mode & 0o077) !== 0) loose.push(`${path} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return loose;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

let umaskBefore: number;
beforeAll(() => {
  umaskBefore = process.umask(0o022); // the usual umask; the panel and the tool inherit it
});
afterAll(async () => {
  await killAll();
  process.umask(umaskBefore);
});

describe('data directory permissions (built panel, umask 022)', () => {
  let fresh: Panel;
  let oldInstall: string;

  it('a fresh data directory: the directory 0700, the database and its journal files 0600', async () => {
    fresh = await startPanel({ coreBin: '/nonexistent/xray' });
    await fresh.api('POST', 'panel/setting/apiTokens/create', { name: 'writes-to-the-database' });
    expect(modeOf(fresh.dataDir)).toBe(0o700);
    const files = readdirSync(fresh.dataDir);
    expect(files).toEqual(expect.arrayContaining(['panel.db', 'panel.db-wal', 'panel.db-shm']));
    expect(looseModes(fresh.dataDir)).toEqual([]);
  }, 60_000);

  it('after a backup download and an import (pre-import snapshot in backups/)', async () => {
    const res = await fetch(new URL('panel/api/server/getDb', fresh.url), {
      headers: { authorization: `Bearer ${fresh.token}` },
    });
    const db = new Uint8Array(await res.arrayBuffer());
    const form = new FormData();
    form.set('db', new File([db as Uint8Array<ArrayBuffer>], 'backup.db'));
    const imp = await (
      await fetch(new URL('panel/api/server/importDB', fresh.url), {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${fresh.token}` },
      })
    ).json();
    expect(imp.success).toBe(true);
    expect(modeOf(join(fresh.dataDir, 'backups'))).toBe(0o700);
    expect(modeOf(imp.obj.backup)).toBe(0o600);
    // The panel restarts in-process after an import; everything it wrote meanwhile is private too.
    await eventually(() => (fresh.proc.output().match(/panel listening on/g) ?? []).length >= 2, 15_000, 100);
    expect(looseModes(fresh.dataDir)).toEqual([]);
    oldInstall = mkdtempSync(join(tmpdir(), 'panel-old-install-'));
    await fresh.stop('SIGTERM', true);
    cpSync(fresh.dataDir, oldInstall, { recursive: true });
  }, 60_000);

  it('an existing world-readable data directory is narrowed at start, with a log line', async () => {
    // What an older version left behind under umask 022: 0755 directories, 0644 files, an executable core.
    mkdirSync(join(oldInstall, 'bin'), { recursive: true });
    writeFileSync(join(oldInstall, 'bin', 'geoip.dat'), 'geo');
    writeFileSync(join(oldInstall, 'bin', 'xray'), '#!/bin/sh\nexit 0\n');
    for (const name of readdirSync(oldInstall, { recursive: true }) as string[])
      chmodSync(join(oldInstall, name), 0o644);
    for (const dir of [oldInstall, join(oldInstall, 'bin'), join(oldInstall, 'backups')]) chmodSync(dir, 0o755);
    chmodSync(join(oldInstall, 'bin', 'xray'), 0o755);
    expect(looseModes(oldInstall).length).toBeGreaterThanOrEqual(6);

    const panel = await startPanel({
      coreBin: '/nonexistent/xray',
      dataDir: oldInstall,
      env: { PANEL_LOG_LEVEL: 'info' },
    });
    expect(looseModes(oldInstall)).toEqual([]);
    expect(modeOf(join(oldInstall, 'panel.db'))).toBe(0o600);
    expect(modeOf(join(oldInstall, 'bin', 'geoip.dat'))).toBe(0o600);
    expect(modeOf(join(oldInstall, 'bin', 'xray'))).toBe(0o700); // still runnable by its owner
    expect(panel.proc.output()).toMatch(/data directory permissions tightened to the panel user only/);
    // The records are all there (the start changed modes, nothing else).
    const tokens = await panel.api('GET', 'panel/setting/apiTokens');
    expect((tokens.obj as { name: string }[]).map((t) => t.name)).toContain('writes-to-the-database');
    await panel.stop('SIGTERM', true);
  }, 60_000);

  it('the command-line tool creates a private data directory too', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'panel-cli-')), 'data');
    execFileSync(process.execPath, [CLI, 'token', 'create', 'from-the-cli'], {
      env: { ...process.env, PANEL_DATA_DIR: dir, PANEL_DB_URL: '' },
      stdio: 'pipe',
    });
    expect(modeOf(dir)).toBe(0o700);
    expect(looseModes(dir)).toEqual([]);
  });
});
