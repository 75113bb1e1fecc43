// getPanelUpdateInfo / updatePanel through app.request(), on libsql and PostgreSQL, against a stand-in release
// feed and a recording PanelInstaller (the real installer and launcher run in test/e2e/panel-update.test.ts).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { createServerHost } from '../../host-agent/server-host.js';
import type { PanelInstaller } from '../../domain/ports/server-tools.js';
import { CORE_VERSIONS_TTL_MS } from '../../domain/server-tools/service.js';

const S = '/panel/api/server';
const ARCHIVE = Buffer.from('a release archive');
const feed = { status: 200, releases: [] as object[], badSum: false, hits: 0 };
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const p = new URL(req.url!, 'http://x').pathname;
    if (p === '/repos/me/panel/releases') {
      feed.hits++;
      res.writeHead(feed.status, { 'content-type': 'application/json' });
      res.end(feed.status === 200 ? JSON.stringify(feed.releases) : '{"message":"nope"}');
      return;
    }
    if (p === '/me/panel/releases/download/v0.3.0/proxy-panel-0.3.0.tar.gz') {
      res.end(ARCHIVE);
      return;
    }
    if (p === '/me/panel/releases/download/v0.3.0/proxy-panel-0.3.0.tar.gz.sha256') {
      res.end(
        `${feed.badSum ? '00'.repeat(32) : createHash('sha256').update(ARCHIVE).digest('hex')}  proxy-panel-0.3.0.tar.gz\n`,
      );
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe.each(testDatabases())('panel update on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let dataDir: string;
  const rec = {
    staged: [] as { version: string; bytes: number }[],
    handed: [] as unknown[],
    unavailable: null as string | null,
    stageError: '',
  };
  const installer: PanelInstaller = {
    unavailable: () => rec.unavailable,
    assetName: (v) => `proxy-panel-${v}.tar.gz`,
    async stage(version, archive) {
      if (rec.stageError) throw new Error(rec.stageError);
      rec.staged.push({ version, bytes: archive.length });
      return { dir: `/prefix/releases/${version}` };
    },
    async handOver(input) {
      rec.handed.push(input);
    },
    async lastResult() {
      return { result: 'updated', from: '0.0.9', to: '0.1.0', at: 1 };
    },
  };

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'panel-update-h-'));
    Object.assign(rec, { staged: [], handed: [], unavailable: null, stageError: '' });
    Object.assign(feed, {
      status: 200,
      badSum: false,
      hits: 0,
      releases: [
        { tag_name: 'v0.1.0' },
        { tag_name: 'v0.3.0' },
        { tag_name: 'v0.9.0', prerelease: true },
        { tag_name: 'v1.0.0', draft: true },
      ],
    });
    t = await createTestApp(db, {
      deps: {
        http: createGuardedFetch({ allowPrivate: true }),
        serverTools: {
          installer,
          host: createServerHost({ dataDir }),
          panelRepo: 'me/panel',
          panelFeed: { api: base, download: base },
        },
      },
    });
    s = await login(t);
  });
  afterEach(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('getPanelUpdateInfo compares the newest stable release with the running version (cached 15 min)', async () => {
    const r = await call(t, 'GET', `${S}/getPanelUpdateInfo`, undefined, s);
    expect(r.json).toEqual({
      success: true,
      msg: '',
      obj: {
        currentVersion: '0.1.0',
        latestVersion: 'v0.3.0',
        updateAvailable: true,
        selfUpdate: true,
        message: 'v0.3.0 is available',
        lastUpdate: { result: 'updated', from: '0.0.9', to: '0.1.0', at: 1 },
      },
    });
    rec.unavailable = 'not started by the launcher';
    const again = await call(t, 'GET', `${S}/getPanelUpdateInfo`, undefined, s);
    expect(again.json.obj).toMatchObject({
      selfUpdate: false,
      message: 'v0.3.0 is available; not started by the launcher',
    });
    expect(feed.hits).toBe(1);
    feed.status = 500;
    t.clock.advance(CORE_VERSIONS_TTL_MS + 1);
    expect((await call(t, 'GET', `${S}/getPanelUpdateInfo`, undefined, s)).json.obj.latestVersion).toBe('v0.3.0'); // stale beats nothing
  });

  it('says when the running version is the newest', async () => {
    feed.releases = [{ tag_name: 'v0.1.0' }, { tag_name: 'v0.0.5' }];
    expect((await call(t, 'GET', `${S}/getPanelUpdateInfo`, undefined, s)).json.obj).toMatchObject({
      updateAvailable: false,
      message: '0.1.0 is the newest release',
    });
    const u = await call(t, 'POST', `${S}/updatePanel`, undefined, s);
    expect(u.json).toMatchObject({ success: false, msg: '0.1.0 is the newest release; nothing to update' });
    expect(rec.staged).toEqual([]);
  });

  it('updatePanel verifies the archive, stages it, snapshots a file database and hands over', async () => {
    const u = await call(t, 'POST', `${S}/updatePanel`, undefined, s);
    expect(u.json).toMatchObject({ success: true, obj: { from: '0.1.0', to: '0.3.0' } });
    expect(u.json.msg).toMatch(/returns to 0\.1\.0 by itself if 0\.3\.0 is not healthy within 60 s/);
    expect(rec.staged).toEqual([{ version: '0.3.0', bytes: ARCHIVE.length }]);
    const h = rec.handed[0] as { fromVersion: string; toVersion: string; dir: string; dbSnapshot: string | null };
    expect(h).toMatchObject({ fromVersion: '0.1.0', toVersion: '0.3.0', dir: '/prefix/releases/0.3.0' });
    if (db.name === 'pg') expect(h.dbSnapshot).toBeNull();
    else {
      expect(h.dbSnapshot).toMatch(/backups\/panel_before-update-0\.3\.0_\d{4}-\d\d-\d\d_\d{6}\.db$/);
      expect(existsSync(h.dbSnapshot!)).toBe(true);
    }
    expect(
      t.emitted.some((e) => e.name === 'notification' && (e.payload as { title: string }).title === 'Panel update'),
    ).toBe(true);
  });

  it('refuses a checksum mismatch, a staging failure and a panel that cannot update itself, changing nothing', async () => {
    feed.badSum = true;
    const bad = await call(t, 'POST', `${S}/updatePanel`, undefined, s);
    expect(bad.json.msg).toMatch(/^panel v0\.3\.0: the download does not match the published SHA-256/);
    expect(rec.staged).toEqual([]);
    feed.badSum = false;
    rec.stageError = 'its migrations check failed: 2 migration(s) unknown';
    const stage = await call(t, 'POST', `${S}/updatePanel`, undefined, s);
    expect(stage.json.msg).toBe(
      'panel v0.3.0: its migrations check failed: 2 migration(s) unknown; nothing was changed',
    );
    rec.unavailable = 'this panel was not started by its launcher';
    expect((await call(t, 'POST', `${S}/updatePanel`, undefined, s)).json.msg).toBe(
      'this panel was not started by its launcher',
    );
    expect(rec.handed).toEqual([]);
  });
});
