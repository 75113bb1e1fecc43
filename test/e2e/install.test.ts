// scripts/install.sh and uninstall.sh in a temporary prefix, without systemd (what this machine allows): the
// layout, the data directory's mode, the environment file, the unit (checked by `systemd-analyze verify` when
// it exists), the printed first admin credential used to log in to the installed panel run by its launcher,
// a second install keeping the data, and uninstall keeping the data unless --purge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePorts, killAll, startProc } from './support/index.js';
import { CURRENT_VERSION, makeReleaseArchive, ROOT } from './support/release.js';

const work = mkdtempSync(join(tmpdir(), 'panel-install-'));
const prefix = join(work, 'prefix');
const data = join(work, 'data');
const units = join(work, 'units');
let archive = '';
let port = 0;
let subPort = 0;

const install = (...extra: string[]) =>
  spawnSync(
    'sh',
    [
      join(ROOT, 'scripts/install.sh'),
      '--prefix',
      prefix,
      '--data-dir',
      data,
      '--user',
      userInfo().username,
      '--port',
      String(port),
      '--unit-dir',
      units,
      '--no-systemd',
      ...extra,
    ],
    { encoding: 'utf8', env: { ...process.env, PANEL_PORT: '', PANEL_DATA_DIR: '', PANEL_PREFIX: '' } },
  );

beforeAll(async () => {
  [port, subPort] = (await freePorts(2)) as [number, number];
  archive = makeReleaseArchive(work, CURRENT_VERSION);
}, 60_000);
afterAll(async () => {
  await killAll();
  rmSync(work, { recursive: true, force: true });
});

describe('install.sh / uninstall.sh (temporary prefix, no systemd)', () => {
  let password = '';

  it('refuses what is not a release', () => {
    const r = spawnSync(
      'sh',
      [join(ROOT, 'scripts/install.sh'), '--prefix', prefix, '--no-systemd', join(ROOT, 'package.json')],
      { encoding: 'utf8' },
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/does not unpack|is not a proxy-panel release/);
    expect(existsSync(join(prefix, 'current'))).toBe(false);
  });

  it('installs the release, the data directory 0700, the environment and the unit, and prints the first credential', () => {
    const r = install(archive);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const m = /admin credential: username admin password ([A-Za-z0-9]{20}) \(shown once/.exec(r.stdout);
    expect(m).not.toBeNull();
    password = m![1]!;
    expect(r.stdout).toMatch(new RegExp(`panel URL: http://[\\d.]+:${port}/`));
    expect(readlinkSync(join(prefix, 'current'))).toBe(join('releases', CURRENT_VERSION));
    expect(statSync(data).mode & 0o777).toBe(0o700);
    const env = readFileSync(join(prefix, 'etc', 'panel.env'), 'utf8');
    expect(env).toContain(`PANEL_DATA_DIR=${data}\n`);
    expect(env).toContain(`PANEL_PREFIX=${prefix}\n`);
    expect(statSync(join(prefix, 'etc', 'panel.env')).mode & 0o777).toBe(0o600);
    const unit = readFileSync(join(units, 'proxy-panel.service'), 'utf8');
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^AmbientCapabilities=CAP_NET_BIND_SERVICE$/m);
    expect(unit).toMatch(/^CapabilityBoundingSet=CAP_NET_BIND_SERVICE$/m);
    expect(unit).toMatch(/^NoNewPrivileges=true$/m);
    expect(unit).toMatch(new RegExp(`^ExecStart=\\S+/node ${prefix}/current/dist/adapters/node/launcher\\.js$`, 'm'));
  });

  it('writes a unit systemd-analyze accepts', (ctx) => {
    const which = spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' });
    if (which.status !== 0) ctx.skip();
    const r = spawnSync('systemd-analyze', ['verify', join(units, 'proxy-panel.service')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it('the installed panel starts from its environment file and the printed credential logs in', async () => {
    const proc = startProc(
      'sh',
      [
        '-c',
        `set -a; . ${prefix}/etc/panel.env; set +a; exec ${process.execPath} ${prefix}/current/dist/adapters/node/launcher.js`,
      ],
      {
        env: {
          ...process.env,
          PANEL_LISTEN: '127.0.0.1',
          SUB_PORT: String(subPort),
          PANEL_CORE_BIN: '/nonexistent/xray',
        },
      },
    );
    await proc.waitFor(/panel listening on/, 30_000);
    const res = await fetch(`http://127.0.0.1:${port}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(await res.json()).toMatchObject({ success: true });
    await proc.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  }, 60_000);

  it('a second install keeps the data and the credential', () => {
    const r = install(archive);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/existing data in .* kept; the admin credential is unchanged/);
    expect(r.stdout).not.toMatch(/admin credential: username/);
  });

  it('uninstall keeps the data unless --purge', () => {
    const un = (...a: string[]) =>
      execFileSync(
        'sh',
        [join(ROOT, 'scripts/uninstall.sh'), '--prefix', prefix, '--data-dir', data, '--unit-dir', units, ...a],
        { encoding: 'utf8' },
      );
    expect(un()).toMatch(/data kept in/);
    expect(existsSync(prefix)).toBe(false);
    expect(existsSync(join(units, 'proxy-panel.service'))).toBe(false);
    expect(existsSync(join(data, 'panel.db'))).toBe(true);
    expect(un('--purge')).toMatch(/removed the data/);
    expect(existsSync(data)).toBe(false);
  });
});
