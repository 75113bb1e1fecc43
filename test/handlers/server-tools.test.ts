// /panel/api/server tools and /panel/api/backuptotgbot through app.request(), on libsql and PostgreSQL, with
// local fake GitHub / Telegram servers behind the guarded fetch (its private-target allowance turned on).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { createServerHost, xrayAssetName } from '../../host-agent/server-host.js';
import { LogRing } from '../../adapters/node/log-ring.js';
import { makeZip } from '../support/zip.js';
import { CORE_VERSIONS_TTL_MS } from '../../domain/server-tools/service.js';
import { DB_UPLOAD_LIMIT_BYTES } from '../../handlers/server-tools.js';

const S = '/panel/api/server';
const ASSET = xrayAssetName()!;
const FAKE_XRAY = '#!/bin/sh\necho "Xray 25.10.31 (Xray, Penetrates Everything.) 0123abc (go1.25.3 linux/amd64)"\n';
const GOOD_ZIP = makeZip([
  { name: 'LICENSE', data: 'license text' },
  { name: 'xray', data: FAKE_XRAY, deflate: true },
  { name: 'geoip.dat', data: 'x' },
]);
const NOT_XRAY_ZIP = makeZip([{ name: 'xray', data: '#!/bin/sh\necho "Something 1.0"\n' }]);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

// ---- the fake outside world -----------------------------------------------------------------------------------
interface Upload {
  chatId: string;
  fileName: string;
  data: Uint8Array;
  caption: string;
}
const world = {
  releasesStatus: 200,
  releaseHits: 0,
  geoStatus: 200,
  uploads: [] as Upload[],
  badChats: new Set<string>(),
};
let server: Server;
let base = '';

const releases = [
  { tag_name: 'v25.9.11' },
  { tag_name: 'v25.10.31' },
  { tag_name: 'v26.1.1-rc1' },
  { tag_name: 'v26.2.2', draft: true },
  { tag_name: 'v24.12.18', prerelease: true },
  { tag_name: 'nightly' },
];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const p = url.pathname;
    if (p === '/repos/XTLS/Xray-core/releases') {
      world.releaseHits++;
      if (world.releasesStatus !== 200) {
        res.writeHead(world.releasesStatus, { 'content-type': 'application/json' });
        res.end('{"message":"API rate limit exceeded"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(releases));
      return;
    }
    const dl = /^\/XTLS\/Xray-core\/releases\/download\/(v[\d.]+)\/(.+)$/.exec(p);
    if (dl) {
      const [, version, file] = dl;
      const zip = version === 'v25.9.11' ? NOT_XRAY_ZIP : GOOD_ZIP;
      if (file === ASSET) {
        res.writeHead(302, { location: `/objects/${version}/${file}` });
        res.end();
        return;
      }
      if (file === `${ASSET}.dgst`) {
        // v24.12.18 publishes a digest that does not match (a tampered or corrupted download).
        const digest = version === 'v24.12.18' ? 'ab'.repeat(32) : sha256(zip);
        res.end(`MD5= 00\nSHA1= 00\nSHA2-256= ${digest}\nSHA2-512= 00\n`);
        return;
      }
    }
    const obj = /^\/objects\/(v[\d.]+)\/(.+)$/.exec(p);
    if (obj) {
      res.end(Buffer.from(obj[1] === 'v25.9.11' ? NOT_XRAY_ZIP : GOOD_ZIP));
      return;
    }
    const geo = /^\/Loyalsoldier\/v2ray-rules-dat\/releases\/latest\/download\/(geoip|geosite)\.dat$/.exec(p);
    if (geo) {
      if (world.geoStatus !== 200) {
        res.writeHead(world.geoStatus);
        res.end('nope');
        return;
      }
      res.writeHead(302, { location: `/geo-objects/${geo[1]}` });
      res.end();
      return;
    }
    if (p.startsWith('/geo-objects/')) {
      res.end(`${p.slice(13)}-data`);
      return;
    }
    const tg = /^\/botTOKEN123\/sendDocument$/.exec(p);
    if (tg && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        const form = await new Request('http://x', {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type']! },
          body: Buffer.concat(chunks),
        }).formData();
        const chatId = String(form.get('chat_id'));
        if (world.badChats.has(chatId)) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end('{"ok":false,"description":"Bad Request: chat not found"}');
          return;
        }
        const doc = form.get('document') as File;
        world.uploads.push({
          chatId,
          fileName: doc.name,
          data: new Uint8Array(await doc.arrayBuffer()),
          caption: String(form.get('caption')),
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true,"result":{}}');
      });
      return;
    }
    res.writeHead(404);
    res.end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

// ---- the app ----------------------------------------------------------------------------------------------------
describe.each(testDatabases())('server tools on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let dataDir: string;
  let ring: LogRing;
  const activated: string[] = [];

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'panel-tools-'));
    ring = new LogRing(100);
    activated.length = 0;
    world.releasesStatus = 200;
    world.releaseHits = 0;
    world.geoStatus = 200;
    world.uploads = [];
    world.badChats.clear();
    t = await createTestApp(db, {
      deps: {
        http: createGuardedFetch({ allowPrivate: true }),
        serverTools: {
          host: createServerHost({ dataDir }),
          logs: ring,
          coreSwitch: {
            activate: async (path) => {
              activated.push(path);
              return { ok: true };
            },
          },
          sources: { githubApi: base, githubDownload: base },
        },
      },
    });
    s = await login(t);
  });
  afterEach(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const notifications = () =>
    t.emitted
      .filter((e) => e.name === 'notification')
      .map((e) => e.payload as { title: string; body: string; severity: string });

  describe('generated keys', () => {
    it('getNewUUID gives a v4 UUID string', async () => {
      const r = await call(t, 'GET', `${S}/getNewUUID`, undefined, s);
      expect(r.json.success).toBe(true);
      expect(r.json.obj).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('getNewX25519Cert, getNewmldsa65, getNewmlkem768 give base64url keys of the right sizes', async () => {
      const x = (await call(t, 'GET', `${S}/getNewX25519Cert`, undefined, s)).json.obj;
      expect(Object.keys(x).sort()).toEqual(['privateKey', 'publicKey']);
      expect(x.privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(x.publicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const d = (await call(t, 'GET', `${S}/getNewmldsa65`, undefined, s)).json.obj;
      expect(Object.keys(d).sort()).toEqual(['privateKey', 'publicKey', 'seed']);
      expect(Buffer.from(d.seed, 'base64url')).toHaveLength(32);
      expect(Buffer.from(d.publicKey, 'base64url')).toHaveLength(1952);
      const k = (await call(t, 'GET', `${S}/getNewmlkem768`, undefined, s)).json.obj;
      expect(Object.keys(k).sort()).toEqual(['clientKey', 'serverKey']);
      expect(Buffer.from(k.serverKey, 'base64url')).toHaveLength(64);
      expect(Buffer.from(k.clientKey, 'base64url')).toHaveLength(1184);
    });

    it('getNewVlessEnc gives auths with integer ids, labels and key strings', async () => {
      const r = await call(t, 'GET', `${S}/getNewVlessEnc`, undefined, {
        bearer: (await t.services.tokens.create('ci')).token,
      });
      expect(r.json.success).toBe(true);
      const auths = r.json.obj.auths;
      expect(auths).toHaveLength(6);
      for (const [i, a] of auths.entries()) {
        expect(a.id).toBe(i);
        expect(typeof a.label).toBe('string');
        expect(a.decryption).toMatch(/^mlkem768x25519plus\.(native|xorpub|random)\.600s\.[A-Za-z0-9_-]+$/);
        expect(a.encryption).toMatch(/^mlkem768x25519plus\.(native|xorpub|random)\.0rtt\.[A-Za-z0-9_-]+$/);
      }
    });

    it('getNewEchCert takes the SNI as a form field and refuses a missing or bad one', async () => {
      const r = await call(t, 'POST', `${S}/getNewEchCert`, new URLSearchParams({ sni: 'cdn.example.com' }), s);
      expect(r.json.success).toBe(true);
      expect(Object.keys(r.json.obj).sort()).toEqual(['echConfigList', 'echKeySet', 'echServerKeys']);
      expect(Array.isArray(r.json.obj.echServerKeys)).toBe(true);
      expect(Buffer.from(r.json.obj.echConfigList, 'base64').includes(Buffer.from('cdn.example.com'))).toBe(true);
      const none = await call(t, 'POST', `${S}/getNewEchCert`, new URLSearchParams({}), s);
      expect(none.json).toMatchObject({ success: false });
      expect(none.json.msg).toMatch(/^sni/);
      const bad = await call(t, 'POST', `${S}/getNewEchCert`, new URLSearchParams({ sni: 'not a host' }), s);
      expect(bad.json.success).toBe(false);
      expect(bad.json.msg).toMatch(/^sni/);
    });

    it('needs authentication', async () => {
      const r = await call(t, 'GET', `${S}/getNewUUID`);
      expect(r.status).toBe(404);
    });
  });

  describe('core versions and install', () => {
    it('lists vX.Y.Z releases newest first, leaving out drafts and odd tags, cached for 15 minutes', async () => {
      const r = await call(t, 'GET', `${S}/getCoreVersion`, undefined, s);
      expect(r.json).toMatchObject({ success: true, obj: ['v25.10.31', 'v25.9.11', 'v24.12.18'] });
      await call(t, 'GET', `${S}/getCoreVersion`, undefined, s);
      expect(world.releaseHits).toBe(1);
      t.clock.advance(CORE_VERSIONS_TTL_MS + 1000);
      await call(t, 'GET', `${S}/getCoreVersion`, undefined, s);
      expect(world.releaseHits).toBe(2);
    });

    it('serves the stale list when GitHub fails, and a clear failure when there is none', async () => {
      world.releasesStatus = 403;
      const none = await call(t, 'GET', `${S}/getCoreVersion`, undefined, s);
      expect(none.json.success).toBe(false);
      expect(none.json.msg).toMatch(/core versions.*403.*rate limit/);
      world.releasesStatus = 200;
      await call(t, 'GET', `${S}/getCoreVersion`, undefined, s);
      world.releasesStatus = 500;
      t.clock.advance(CORE_VERSIONS_TTL_MS + 1000);
      const stale = await call(t, 'GET', `${S}/getCoreVersion`, undefined, s);
      expect(stale.json).toMatchObject({ success: true, obj: ['v25.10.31', 'v25.9.11', 'v24.12.18'] });
      expect(world.releaseHits).toBe(3);
    });

    it('installs latest: downloads, verifies the SHA-256, unpacks bin/xray, switches and restarts the core', async () => {
      const before = t.core.calls.filter((c) => c.op === 'restart').length;
      const r = await call(t, 'POST', `${S}/installCore/latest`, undefined, s);
      expect(r.json.success).toBe(true);
      expect(r.json.obj).toMatchObject({ version: 'v25.10.31', restarted: true });
      const bin = join(dataDir, 'bin', 'xray');
      expect(r.json.obj.path).toBe(bin);
      expect(readFileSync(bin, 'utf8')).toBe(FAKE_XRAY);
      expect(statSync(bin).mode & 0o111).not.toBe(0);
      expect(activated).toEqual([bin]);
      expect(t.core.calls.filter((c) => c.op === 'restart').length).toBe(before + 1);
      expect(notifications().at(-1)).toMatchObject({ title: 'Core installed', severity: 'success' });
      expect(readdirSync(join(dataDir, 'bin'))).toEqual(['xray']);
    });

    it('refuses a checksum mismatch, a binary that is not Xray, an unknown or malformed version, and changes nothing', async () => {
      const mismatch = await call(t, 'POST', `${S}/installCore/v24.12.18`, undefined, s);
      expect(mismatch.json.success).toBe(false);
      expect(mismatch.json.msg).toMatch(/SHA-256/);
      const notXray = await call(t, 'POST', `${S}/installCore/25.9.11`, undefined, s);
      expect(notXray.json.success).toBe(false);
      expect(notXray.json.msg).toMatch(/not Xray/);
      const unknown = await call(t, 'POST', `${S}/installCore/v9.9.9`, undefined, s);
      expect(unknown.json.msg).toMatch(/not an available core release/);
      const bad = await call(t, 'POST', `${S}/installCore/..%2F..%2Fetc`, undefined, s);
      expect(bad.json.success).toBe(false);
      expect(bad.json.msg).toMatch(/^version/);
      expect(existsSync(join(dataDir, 'bin', 'xray'))).toBe(false);
      expect(activated).toEqual([]);
      expect(t.core.calls.some((c) => c.op === 'restart')).toBe(false);
    });
  });

  describe('geo files', () => {
    it('updates one allowed file into bin/ and restarts the running core', async () => {
      const r = await call(t, 'POST', `${S}/updateGeofile/geoip.dat`, undefined, s);
      expect(r.json).toMatchObject({ success: true, obj: { updated: ['geoip.dat'], restarted: true } });
      expect(readFileSync(join(dataDir, 'bin', 'geoip.dat'), 'utf8')).toBe('geoip-data');
      expect(t.core.calls.filter((c) => c.op === 'restart')).toHaveLength(1);
    });

    it('updates the defaults when no name is given (form body)', async () => {
      const r = await call(t, 'POST', `${S}/updateGeofile`, new URLSearchParams({}), s);
      expect(r.json.obj.updated).toEqual(['geoip.dat', 'geosite.dat']);
      expect(readFileSync(join(dataDir, 'bin', 'geosite.dat'), 'utf8')).toBe('geosite-data');
      const one = await call(t, 'POST', `${S}/updateGeofile`, new URLSearchParams({ fileName: 'geosite.dat' }), s);
      expect(one.json.obj.updated).toEqual(['geosite.dat']);
    });

    it('accepts allowed names only (no path traversal) and reports download failures', async () => {
      for (const name of ['..%2F..%2Fetc%2Fpasswd', 'evil.dat', 'geoip.dat.bak']) {
        const r = await call(t, 'POST', `${S}/updateGeofile/${name}`, undefined, s);
        expect(r.json.success, name).toBe(false);
        expect(r.json.msg).toMatch(/not an allowed geo file/);
      }
      const form = await call(t, 'POST', `${S}/updateGeofile`, new URLSearchParams({ fileName: '../panel.db' }), s);
      expect(form.json.msg).toMatch(/not an allowed geo file/);
      world.geoStatus = 404;
      const failed = await call(t, 'POST', `${S}/updateGeofile/geoip.dat`, undefined, s);
      expect(failed.json.success).toBe(false);
      expect(failed.json.msg).toMatch(/geoip\.dat.*HTTP 404/);
      expect(readdirSync(dataDir)).not.toContain('bin');
    });
  });

  describe('logs', () => {
    it('returns the last N panel log lines at or above a level', async () => {
      ring.push('{"level":"info","msg":"one"}');
      ring.push('{"level":"warn","msg":"two"}');
      ring.push('{"level":"debug","msg":"three"}');
      ring.push('{"level":"error","msg":"four"}');
      ring.push('{"level":"info","msg":"five"}');
      const r = await call(t, 'POST', `${S}/logs/10`, { level: 'warn', syslog: false }, s);
      expect(r.json.obj).toBe('{"level":"warn","msg":"two"}\n{"level":"error","msg":"four"}');
      const last2 = await call(t, 'POST', `${S}/logs/2`, { level: 'info' }, s);
      expect(last2.json.obj.split('\n')).toEqual(['{"level":"error","msg":"four"}', '{"level":"info","msg":"five"}']);
      const form = await call(t, 'POST', `${S}/logs/1`, new URLSearchParams({ level: 'warning', syslog: 'false' }), s);
      expect(form.json.obj).toBe('{"level":"error","msg":"four"}');
    });

    it('rejects a bad count or level', async () => {
      expect((await call(t, 'POST', `${S}/logs/0`, {}, s)).json.msg).toMatch(/^count/);
      expect((await call(t, 'POST', `${S}/logs/abc`, {}, s)).json.msg).toMatch(/^count/);
      expect((await call(t, 'POST', `${S}/logs/10`, { level: 'loud' }, s)).json.msg).toMatch(/^level/);
    });

    it('corelogs filters the access and error logs by keyword and direct / blocked / proxy', async () => {
      writeFileSync(
        join(dataDir, 'access.log'),
        [
          '2026/11/22 01:48:47 from 127.0.0.1:43936 accepted tcp:example.com:443 [in-1 -> direct] email: alice@x',
          '2026/11/22 01:48:49 from 127.0.0.1:43937 accepted tcp:ads.example:443 [in-1 -> blocked] email: bob@x',
          '2026/11/22 01:48:50 from 127.0.0.1:43938 accepted tcp:foo.org:443 [in-1 -> warp] email: alice@x',
          '2026/11/22 01:48:51 from 127.0.0.1:50000 accepted tcp:127.0.0.1:62789 [api -> api]',
          '',
        ].join('\n'),
      );
      writeFileSync(join(dataDir, 'error.log'), '2026/11/22 01:48:48 [Warning] core: something odd\n');
      const all = await call(
        t,
        'POST',
        `${S}/corelogs/10`,
        new URLSearchParams({ filter: '', showDirect: 'true', showBlocked: 'true', showProxy: 'true' }),
        s,
      );
      expect(all.json.obj.split('\n').map((l: string) => l.slice(11, 19))).toEqual([
        '01:48:47',
        '01:48:48',
        '01:48:49',
        '01:48:50',
      ]);
      const blockedOnly = await call(t, 'POST', `${S}/corelogs/10`, new URLSearchParams({ showBlocked: 'true' }), s);
      expect(blockedOnly.json.obj).toMatch(/ads\.example/);
      expect(blockedOnly.json.obj.split('\n')).toHaveLength(1);
      const alice = await call(
        t,
        'POST',
        `${S}/corelogs/1`,
        new URLSearchParams({ filter: 'alice', showDirect: 'true', showBlocked: 'true', showProxy: 'true' }),
        s,
      );
      expect(alice.json.obj).toMatch(/foo\.org/);
      const none = await call(t, 'POST', `${S}/corelogs/10`, new URLSearchParams({}), s);
      expect(none.json).toMatchObject({ success: true, obj: '' });
    });
  });

  describe('panel update', () => {
    it('says honestly that there is no self-update without an installer (the feed is test/e2e/panel-update)', async () => {
      const info = await call(t, 'GET', `${S}/getPanelUpdateInfo`, undefined, s);
      expect(info.json).toMatchObject({
        success: false,
        msg: 'cannot fetch the panel releases of proxy-panel/proxy-panel: HTTP 404',
      });
      const up = await call(t, 'POST', `${S}/updatePanel`, undefined, s);
      expect(up.json.success).toBe(false);
      expect(up.json.msg).toMatch(/git pull, npm install, npm run build/);
      expect(t.restarts).toEqual([]);
    });
  });

  describe('database', () => {
    it('getDb returns a consistent SQLite copy as an attachment', async () => {
      await t.services.settings.update({ subTitle: 'exported' });
      const res = await t.app.request(`${S}/getDb`, { headers: { cookie: s.cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="panel_2026-11-22_120000\.db"$/);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(Buffer.from(bytes.subarray(0, 16)).toString('latin1')).toBe('SQLite format 3\0');
      const file = join(dataDir, 'copy.db');
      writeFileSync(file, bytes);
      const c = createClient({ url: `file:${file}` });
      const users = await c.execute('SELECT username FROM users');
      const title = await c.execute("SELECT value FROM settings WHERE key = 'subTitle'");
      c.close();
      expect(users.rows.map((r) => r.username)).toEqual(['admin']);
      expect(String(title.rows[0]?.value)).toContain('exported');
    });

    it('importDB keeps a backup, replaces the data, restarts the core and asks for a panel restart', async () => {
      // A second panel with other data provides the upload.
      const other = await createTestApp(db);
      await other.services.settings.update({ subTitle: 'from the other panel' });
      const upload = await other.store.backup.snapshot();
      await other.close();
      await t.services.settings.update({ subTitle: 'mine' });

      const form = new FormData();
      form.set('db', new File([upload as Uint8Array<ArrayBuffer>], 'backup.db'));
      const r = await call(t, 'POST', `${S}/importDB`, form, s);
      expect(r.json.success).toBe(true);
      expect(r.json.obj.rows).toBeGreaterThan(0);
      t.services.settings.invalidate();
      expect((await t.services.settings.effective()).subTitle).toBe('from the other panel');
      const backups = readdirSync(join(dataDir, 'backups'));
      expect(backups).toHaveLength(1);
      expect(r.json.obj.backup).toBe(join(dataDir, 'backups', backups[0]!));
      expect(statSync(r.json.obj.backup).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'backups')).mode & 0o777).toBe(0o700);
      const kept = createClient({ url: `file:${r.json.obj.backup}` });
      expect(
        String((await kept.execute("SELECT value FROM settings WHERE key = 'subTitle'")).rows[0]?.value),
      ).toContain('mine');
      kept.close();
      expect(t.restarts).toEqual([3000]);
      // The imported database has its own session secret: the old session is gone, the imported admin logs in.
      expect((await call(t, 'GET', `${S}/getNewUUID`, undefined, s)).status).toBe(404);
      expect((await call(t, 'GET', `${S}/getNewUUID`, undefined, await login(t))).json.success).toBe(true);
      expect(t.core.calls.some((c) => c.op === 'restart')).toBe(true);
      expect(notifications().at(-1)).toMatchObject({ title: 'Database imported', severity: 'success' });
    });

    it('importDB: the paged client list shows the imported clients at once (its catalog is read again)', async () => {
      const emailsOf = async (session: Session, search: string) =>
        (await call(t, 'GET', `/panel/api/clients/list/paged?search=${search}`, undefined, session)).json.obj.items.map(
          (i: any) => i.email,
        );
      const addClient = async (app: TestApp, session: Session, port: number, email: string) => {
        const ib = (
          await call(
            app,
            'POST',
            '/panel/api/inbounds/add',
            { port, protocol: 'vless', streamSettings: { network: 'ws' } },
            session,
          )
        ).json.obj.id;
        expect(
          (await call(app, 'POST', '/panel/api/clients/add', { client: { email }, inboundIds: [ib] }, session)).json
            .success,
        ).toBe(true);
      };
      await addClient(t, s, 42001, 'mine@x');
      expect(await emailsOf(s, 'mine')).toEqual(['mine@x']);
      const other = await createTestApp(db);
      await addClient(other, await login(other), 42002, 'imported@x');
      const upload = await other.store.backup.snapshot();
      await other.close();
      const form = new FormData();
      form.set('db', new File([upload as Uint8Array<ArrayBuffer>], 'backup.db'));
      expect((await call(t, 'POST', `${S}/importDB`, form, s)).json.success).toBe(true);
      const fresh = await login(t);
      expect(await emailsOf(fresh, 'imported')).toEqual(['imported@x']);
      expect(await emailsOf(fresh, 'mine')).toEqual([]);
    });

    it('importDB: inbounds/get shows the imported clients at once (no settings.clients text kept from before)', async () => {
      const ib = (
        await call(
          t,
          'POST',
          '/panel/api/inbounds/add',
          { port: 42101, protocol: 'vless', streamSettings: { network: 'ws' } },
          s,
        )
      ).json.obj.id;
      expect(
        (await call(t, 'POST', '/panel/api/clients/add', { client: { email: 'kept-before@x' }, inboundIds: [ib] }, s))
          .json.success,
      ).toBe(true);
      const emailsOf = async (session: Session) =>
        (await call(t, 'GET', `/panel/api/inbounds/get/${ib}`, undefined, session)).json.obj.settings.clients.map(
          (c: any) => c.email,
        );
      expect(await emailsOf(s)).toEqual(['kept-before@x']);
      expect(await emailsOf(s)).toEqual(['kept-before@x']); // read twice: its text is kept
      // The upload holds an inbound with the same id and another client.
      const other = await createTestApp(db);
      const os = await login(other);
      let otherId = 0;
      for (let port = 43001; otherId < ib; port++) {
        otherId = (
          await call(
            other,
            'POST',
            '/panel/api/inbounds/add',
            { port, protocol: 'vless', streamSettings: { network: 'ws' } },
            os,
          )
        ).json.obj.id;
      }
      expect(otherId).toBe(ib);
      expect(
        (
          await call(
            other,
            'POST',
            '/panel/api/clients/add',
            { client: { email: 'from-upload@x' }, inboundIds: [ib] },
            os,
          )
        ).json.success,
      ).toBe(true);
      const upload = await other.store.backup.snapshot();
      await other.close();
      const form = new FormData();
      form.set('db', new File([upload as Uint8Array<ArrayBuffer>], 'backup.db'));
      expect((await call(t, 'POST', `${S}/importDB`, form, s)).json.success).toBe(true);
      expect(await emailsOf(await login(t))).toEqual(['from-upload@x']);
    });

    it('importDB refuses what is not a database of this panel and changes nothing', async () => {
      await t.services.settings.update({ subTitle: 'untouched' });
      const send = (data: Uint8Array | string) => {
        const form = new FormData();
        form.set('db', new File([data as BlobPart], 'x.db'));
        return call(t, 'POST', `${S}/importDB`, form, s);
      };
      expect((await send('hello, not a database')).json.msg).toMatch(/not a SQLite database/);
      const foreign = join(dataDir, 'foreign.db');
      const c = createClient({ url: `file:${foreign}` });
      await c.execute('CREATE TABLE inbounds (id INTEGER PRIMARY KEY, remark TEXT)');
      c.close();
      const f = await send(new Uint8Array(readFileSync(foreign)));
      expect(f.json.success).toBe(false);
      expect(f.json.msg).toMatch(/not a database of this panel.*missing tables/);
      const damaged = new Uint8Array(await t.store.backup.snapshot());
      damaged.fill(0x55, 200, 4096);
      expect((await send(damaged)).json.success).toBe(false);
      const noFile = await call(t, 'POST', `${S}/importDB`, new URLSearchParams({ db: 'x' }), s);
      expect(noFile.json.msg).toMatch(/^db/);
      t.services.settings.invalidate();
      expect((await t.services.settings.effective()).subTitle).toBe('untouched');
      expect(t.restarts).toEqual([]);
      expect(existsSync(join(dataDir, 'backups'))).toBe(false);
    });

    it('importDB refuses an upload over its limit with the limit in the message; other routes keep 10 MiB', async () => {
      await t.services.settings.update({ subTitle: 'untouched' });
      const big = await t.app.request(`${S}/importDB`, {
        method: 'POST',
        headers: {
          cookie: s.cookie,
          'x-csrf-token': s.csrf,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(DB_UPLOAD_LIMIT_BYTES + 1),
        },
        body: '--x--',
      });
      expect(big.status).toBe(413);
      const body = await big.json();
      expect(body.success).toBe(false);
      expect(body.msg).toBe(
        'db: the upload is larger than the limit of 256 MiB; import a larger file on the host with `panel db import FILE`',
      );
      // A 12 MiB upload is within importDB's limit (refused for what it is, not for its size) but over the others'.
      const form = new FormData();
      form.set('db', new File([new Uint8Array(12 * 1024 * 1024)], 'x.db'));
      const mid = await call(t, 'POST', `${S}/importDB`, form, s);
      expect(mid.status).toBe(200);
      expect(mid.json.msg).toMatch(/not a SQLite database/);
      const other = await call(t, 'POST', `${S}/updateGeofile`, form, s);
      expect(other.status).toBe(413);
      t.services.settings.invalidate();
      expect((await t.services.settings.effective()).subTitle).toBe('untouched');
      expect(t.restarts).toEqual([]);
    });

    it('backuptotgbot sends the database file to every admin chat and names the ones that failed', async () => {
      const missing = await call(t, 'POST', '/panel/api/backuptotgbot', undefined, s);
      expect(missing.json.msg).toMatch(/^tgBotToken/);
      await t.services.settings.update({ tgBotToken: 'TOKEN123', tgBotChatId: '111, 222', tgBotApiUrl: base });
      const r = await call(t, 'POST', '/panel/api/backuptotgbot', undefined, s);
      expect(r.json).toMatchObject({ success: true, obj: { sent: ['111', '222'] } });
      expect(world.uploads.map((u) => u.chatId)).toEqual(['111', '222']);
      for (const u of world.uploads) {
        expect(u.fileName).toMatch(/^panel_.*\.db$/);
        expect(Buffer.from(u.data.subarray(0, 15)).toString()).toBe('SQLite format 3');
      }
      world.badChats.add('222');
      const partial = await call(t, 'POST', '/panel/api/backuptotgbot', undefined, s);
      expect(partial.json.success).toBe(false);
      expect(partial.json.msg).toMatch(/222: Bad Request: chat not found/);
      expect(partial.json.msg).toMatch(/sent to 111/);
      expect(partial.json.msg).not.toContain('TOKEN123');
    });
  });
});
