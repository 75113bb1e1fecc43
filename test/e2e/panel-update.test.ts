// Panel self-update end to end: an installed layout (PREFIX/releases/<v>, PREFIX/current) run by the built
// launcher as the systemd unit would run it, a local stand-in for the GitHub release feed, and release
// archives made from the built dist/. Cases: no newer release, a failed checksum, an update, a release whose
// migrations check fails, and a release that does not start (rolled back by the launcher).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToken, eventually, freePorts, killAll, startProc, type Envelope, type Proc } from './support/index.js';
import { CURRENT_VERSION, makeReleaseArchive } from './support/release.js';

const CURRENT = CURRENT_VERSION;
const REPO = 'proxy-panel/proxy-panel';
const [maj, min] = CURRENT.split('.').map(Number) as [number, number];
const NEXT = `${maj}.${min + 1}.0`;
const BROKEN = `${maj}.${min + 2}.0`;
const TOO_OLD = `${maj}.${min + 3}.0`;

const work = mkdtempSync(join(tmpdir(), 'panel-update-'));
const prefix = join(work, 'prefix');
const dataDir = join(work, 'data');

const makeRelease = (version: string, tweak?: (dir: string) => void): Buffer =>
  readFileSync(makeReleaseArchive(work, version, tweak));

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const feed = {
  releases: [] as { tag_name: string; prerelease?: boolean }[],
  archives: new Map<string, Buffer>(),
  badSum: new Set<string>(),
  hits: 0,
};
let server: Server;
let feedUrl = '';
let launcher: Proc;
let url = '';
let token = '';

const api = async (method: 'GET' | 'POST', path: string): Promise<Envelope> => {
  const res = await fetch(new URL(path, url), { method, headers: { authorization: `Bearer ${token}` } });
  return res.json();
};
const info = () => api('GET', 'panel/api/server/getPanelUpdateInfo');
const currentTarget = () => readlinkSync(join(prefix, 'current'));

beforeAll(async () => {
  server = createServer((req, res) => {
    const p = new URL(req.url!, 'http://x').pathname;
    if (p === `/repos/${REPO}/releases`) {
      feed.hits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(feed.releases));
      return;
    }
    const m = new RegExp(`^/${REPO}/releases/download/v([\\d.]+)/proxy-panel-([\\d.]+)\\.tar\\.gz(\\.sha256)?$`).exec(
      p,
    );
    const archive = m && m[1] === m[2] ? feed.archives.get(m[1]!) : undefined;
    if (m && archive) {
      if (m[3]) res.end(`${feed.badSum.has(m[1]!) ? 'ab'.repeat(32) : sha(archive)}  proxy-panel-${m[1]}.tar.gz\n`);
      else res.end(archive);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // The installed release, as scripts/install.sh leaves it.
  mkdirSync(join(prefix, 'releases'), { recursive: true });
  execFileSync('tar', ['-xzf', '-', '-C', join(prefix, 'releases')], { input: makeRelease(CURRENT) });
  execFileSync('mv', [join(prefix, 'releases', `proxy-panel-${CURRENT}`), join(prefix, 'releases', CURRENT)]);
  symlinkSync(join('releases', CURRENT), join(prefix, 'current'));
  feed.releases = [{ tag_name: `v${CURRENT}` }, { tag_name: 'v99.0.0', prerelease: true }];

  const [panelPort, subPort] = await freePorts(2);
  launcher = startProc(process.execPath, [join(prefix, 'current', 'dist', 'adapters', 'node', 'launcher.js')], {
    env: {
      ...process.env,
      PANEL_DATA_DIR: dataDir,
      PANEL_LISTEN: '127.0.0.1',
      PANEL_PORT: String(panelPort),
      SUB_PORT: String(subPort),
      PANEL_CORE_BIN: '/nonexistent/xray',
      PANEL_ADMIN_USERNAME: 'e2e-admin',
      PANEL_ADMIN_PASSWORD: 'e2e-password-123',
      PANEL_LOG_LEVEL: 'warn',
      PANEL_RELEASE_API: feedUrl,
      PANEL_RELEASE_DOWNLOAD: feedUrl,
      PANEL_RELEASE_ALLOW_PRIVATE: 'true',
      PANEL_UPDATE_HEALTH_MS: '30000',
    },
  });
  await launcher.waitFor(/panel listening on (\S+)/, 30_000);
  url = `http://127.0.0.1:${panelPort}/`;
  token = await createToken(url);
}, 120_000);

afterAll(async () => {
  await launcher?.kill('SIGTERM');
  await killAll();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(work, { recursive: true, force: true });
});

describe('panel self-update (installed layout, launcher, local release feed)', () => {
  it('reports no newer release (prereleases ignored) and refuses to update', async () => {
    const i = await info();
    expect(i).toMatchObject({
      success: true,
      obj: { currentVersion: CURRENT, latestVersion: `v${CURRENT}`, updateAvailable: false, selfUpdate: true },
    });
    const u = await api('POST', 'panel/api/server/updatePanel');
    expect(u).toMatchObject({ success: false, msg: `${CURRENT} is the newest release; nothing to update` });
  });

  it('refuses an archive that does not match its checksum and changes nothing', async () => {
    feed.archives.set(NEXT, makeRelease(NEXT));
    feed.badSum.add(NEXT);
    feed.releases.unshift({ tag_name: `v${NEXT}` });
    const u = await api('POST', 'panel/api/server/updatePanel');
    expect(u.success).toBe(false);
    expect(u.msg).toMatch(
      new RegExp(`^panel v${NEXT}: the download does not match the published SHA-256 .*nothing was changed$`),
    );
    expect(readdirSync(join(prefix, 'releases'))).toEqual([CURRENT]);
    expect(currentTarget()).toBe(join('releases', CURRENT));
  });

  it('updates: verified, staged beside the running release, switched, restarted, healthy', async () => {
    feed.badSum.clear();
    const u = await api('POST', 'panel/api/server/updatePanel');
    expect(u).toMatchObject({ success: true, obj: { from: CURRENT, to: NEXT } });
    const after = await eventually(
      async () => {
        const i = await info();
        return i.obj?.currentVersion === NEXT && i.obj.lastUpdate?.result === 'updated' ? i : null;
      },
      60_000,
      300,
    );
    expect(after!.obj).toMatchObject({
      updateAvailable: false,
      lastUpdate: { result: 'updated', from: CURRENT, to: NEXT },
    });
    expect(currentTarget()).toBe(join('releases', NEXT));
    expect(readdirSync(join(prefix, 'releases')).sort()).toEqual([CURRENT, NEXT].sort());
    // The data came along: the API token made before the update still works (it answered above).
    expect(readdirSync(join(dataDir, 'backups')).some((f) => f.startsWith(`panel_before-update-${NEXT}_`))).toBe(true);
  }, 90_000);

  it('refuses a release whose migrations check fails (older than the data) before switching', async () => {
    feed.archives.set(
      TOO_OLD,
      makeRelease(TOO_OLD, (dir) => {
        const j = join(dir, 'dist', 'storage', 'migrations', 'sqlite', 'meta', '_journal.json');
        const journal = JSON.parse(readFileSync(j, 'utf8'));
        writeFileSync(j, JSON.stringify({ ...journal, entries: journal.entries.slice(0, 1) }));
      }),
    );
    feed.releases.unshift({ tag_name: `v${TOO_OLD}` });
    const u = await api('POST', 'panel/api/server/updatePanel');
    expect(u.success).toBe(false);
    expect(u.msg).toMatch(
      /its migrations check failed: .*unknown to this build: it is older than the data; nothing was changed$/,
    );
    expect(currentTarget()).toBe(join('releases', NEXT));
    expect(existsSync(join(prefix, 'releases', TOO_OLD))).toBe(false);
    feed.releases.shift();
  });

  it('rolls back by itself when the new release does not come up healthy', async () => {
    feed.archives.set(
      BROKEN,
      makeRelease(BROKEN, (dir) =>
        writeFileSync(join(dir, 'dist', 'adapters', 'node', 'main.js'), 'console.error("boom"); process.exit(3);\n'),
      ),
    );
    feed.releases.unshift({ tag_name: `v${BROKEN}` });
    const u = await api('POST', 'panel/api/server/updatePanel');
    expect(u).toMatchObject({ success: true, obj: { from: NEXT, to: BROKEN } });
    const after = await eventually(
      async () => {
        const i = await info();
        return i.obj?.lastUpdate?.to === BROKEN ? i : null;
      },
      60_000,
      300,
    );
    expect(after!.obj).toMatchObject({
      currentVersion: NEXT,
      latestVersion: `v${BROKEN}`,
      updateAvailable: true,
      lastUpdate: { result: 'rolled-back', from: NEXT, to: BROKEN, reason: 'it exited with code 3' },
    });
    expect(currentTarget()).toBe(join('releases', NEXT));
    expect(launcher.output()).toMatch(
      new RegExp(`launcher: rolled back ${BROKEN.replace(/\./g, '\\.')} -> ${NEXT.replace(/\./g, '\\.')}`),
    );
  }, 90_000);
});
