// Moving in from 3x-ui: importDB with an x-ui.db of the v2.x line and of v3.x (built in the test from the
// reference's table layout), on libsql and PostgreSQL. After the import the clients, their traffic, the core
// config and the share links mean what those 3x-ui records meant; what has no counterpart is listed in
// obj.skipped; the real core accepts the generated config.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { createServerHost } from '../../host-agent/server-host.js';
import { BCRYPT, buildXuiDb, DAY, NOW, U } from '../support/xui-fixture.js';

const CORE_BIN = process.env.PANEL_TEST_CORE_BIN || '';
const PORTS: [number, number, number, number] = [44301, 44302, 44303, 44304];
const work = mkdtempSync(join(tmpdir(), 'panel-xui-'));
const certFile = join(work, 'cert.pem');
const keyFile = join(work, 'key.pem');
beforeAll(() => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=example.com',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function fixture(version: 'v2' | 'v3', adminPassword?: string): Promise<Uint8Array> {
  const path = join(work, `x-ui-${version}-${Math.random().toString(36).slice(2)}.db`);
  await buildXuiDb(path, { version, ports: PORTS, certFile, keyFile, adminPassword });
  return new Uint8Array(readFileSync(path));
}

describe.each(testDatabases())('3x-ui import on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let dataDir: string;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'panel-xui-data-'));
    t = await createTestApp(db, { deps: { serverTools: { host: createServerHost({ dataDir }) } } });
    s = await login(t);
  });
  afterEach(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const importDb = async (data: Uint8Array) => {
    const form = new FormData();
    form.set('db', new File([data as Uint8Array<ArrayBuffer>], 'x-ui.db'));
    return call(t, 'POST', '/panel/api/server/importDB', form, s);
  };

  describe.each(['v2', 'v3'] as const)('x-ui.db of %s', (version) => {
    it('converts inbounds, clients, traffic and settings, and lists what it left out', async () => {
      await call(
        t,
        'POST',
        '/panel/api/inbounds/add',
        { port: 45000, protocol: 'vless', streamSettings: { network: 'ws' } },
        s,
      );
      const r = await importDb(await fixture(version));
      expect(r.json.success, r.json.msg).toBe(true);
      const obj = r.json.obj;
      expect(obj.format).toBe('x-ui');
      expect(r.json.msg).toMatch(/from 3x-ui/);
      expect(obj.converted).toMatchObject({ inbounds: 4, clients: 7, clientTraffics: 8 });
      const skipped = obj.skipped.map((x: { what: string; reason: string }) => `${x.what} :: ${x.reason}`);
      expect(skipped).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^inbound 5 \(tun device, port 0\) :: protocol tun has no counterpart/),
          expect.stringMatching(/^admin password of xadmin :: stored as a bcrypt hash/),
          expect.stringMatching(
            /^setting timeLocation :: value "Local" refused: timeLocation: must be an IANA time zone/,
          ),
          expect.stringMatching(/^setting remarkModel :: no counterpart/),
          expect.stringMatching(/^traffic reset schedule of inbound 1 .*"monthly"/),
          expect.stringMatching(/^client IP history \(1 clients\)/),
        ]),
      );
      if (version === 'v3') {
        expect(skipped, skipped.join('\n')).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^API token hashed :: 3x-ui keeps only a SHA-256 hash/),
            expect.stringMatching(/^per-node client traffic \(1 rows\)/),
          ]),
        );
      }
      // Internal 3x-ui state and the dropped all-time counters are not reported as losses.
      expect(skipped.join('\n')).not.toMatch(/secret|all_time|allTime|history_of_seeders/);
      expect(t.restarts).toEqual([3000]);

      // The admin: a bcrypt hash cannot be verified here, so a new password was set and shown once.
      expect(obj.newAdminPassword).toMatch(/^[A-Za-z0-9]{20}$/);
      expect(r.json.msg).toContain(obj.newAdminPassword);
      await expect(login(t)).rejects.toThrow(/login failed/);
      s = await login(t, { username: 'xadmin', password: obj.newAdminPassword });

      // Settings that have a counterpart.
      t.services.settings.invalidate();
      const eff = await t.services.settings.effective();
      expect(eff).toMatchObject({
        subPath: '/mysub/',
        subTitle: 'Moved from 3x-ui',
        tgBotChatId: '111,222',
        restartCoreOnClientDisable: true,
        expireDiff: 3,
        subEncrypt: false,
      });
      expect((await t.services.core.template()).outbounds).toEqual([
        { protocol: 'freedom', tag: 'direct' },
        { protocol: 'blackhole', tag: 'blocked' },
      ]);

      // Clients: one per email, attached to every inbound that listed it, with their limits.
      const list = (await call(t, 'GET', '/panel/api/clients/list', undefined, s)).json.obj;
      const emails = list.map((c: { email: string }) => c.email).sort();
      expect(emails).toEqual(['alice@x', 'delayed@x', 'depleted@x', 'expired@x', 'off@x', 'shared@x', 'ss@x']);
      const full = async (email: string) =>
        (await call(t, 'GET', `/panel/api/clients/get/${email}`, undefined, s)).json.obj;
      const get = async (email: string) => (await full(email)).client;
      const inboundIds = (await call(t, 'GET', '/panel/api/inbounds/list', undefined, s)).json.obj.map(
        (i: { id: number; port: number }) => [i.port, i.id],
      );
      const idOf = Object.fromEntries(inboundIds) as Record<number, number>;
      expect(Object.keys(idOf).map(Number).sort()).toEqual(PORTS);
      const shared = await get('shared@x');
      const sharedOn: number[] = (await full('shared@x')).inboundIds;
      expect(shared).toMatchObject({
        email: 'shared@x',
        uuid: U(2),
        subId: 'sub-shared',
        totalGB: 50 * 2 ** 30,
        expiryTime: NOW + 30 * DAY,
        tgId: 424242,
        reset: 30,
        enable: true,
      });
      expect([...sharedOn].sort()).toEqual([idOf[PORTS[0]], idOf[PORTS[1]]].sort());
      if (version === 'v3') expect(shared.group).toBe('team');
      expect(await get('alice@x')).toMatchObject({ limitIp: 2, comment: 'vip', subId: 'sub-alice', uuid: U(1) });
      expect(await get('delayed@x')).toMatchObject({ expiryTime: -3 * DAY });
      expect(await get('off@x')).toMatchObject({ enable: false, comment: 'paused' });
      // Depleted in 3x-ui (its traffic row disabled): disabled here with the depleted mark, so a renewal revives it.
      expect(await get('depleted@x')).toMatchObject({ password: 'trojan-pass-1', totalGB: 2 ** 20, enable: false });
      expect(await get('expired@x')).toMatchObject({ enable: false });

      // Traffic: counters, the depleted flag, last online in seconds.
      const traffic = async (email: string) => (await get(email)).traffic;
      expect(await traffic('depleted@x')).toEqual({
        up: 2 ** 19,
        down: 2 ** 19 + 5,
        enable: false,
        lastOnline: Math.floor((NOW - DAY) / 1000),
      });
      expect(await traffic('shared@x')).toMatchObject({ up: 3 * 2 ** 30, down: 4 * 2 ** 30, enable: true });
      expect(await traffic('expired@x')).toMatchObject({ enable: false });
      expect(await traffic('alice@x')).toMatchObject({ lastOnline: Math.floor((NOW - 60_000) / 1000) });
      // Counters of an email no inbound lists any more are kept, and readable, as after a delete with keepTraffic.
      expect((await call(t, 'GET', '/panel/api/clients/traffic/orphan@x', undefined, s)).json.success).toBe(true);

      // Share links for each inbound the client is on, with its credential.
      const links = (await call(t, 'GET', `/panel/api/clients/links/shared@x`, undefined, s)).json.obj as string[];
      expect(links.some((l) => l.startsWith('vless://') && l.includes(U(2)))).toBe(true);
      expect(links.some((l) => l.startsWith('vmess://'))).toBe(true);

      // The core config: enabled, non-depleted clients on each inbound; the fallback to the vmess child.
      const { config } = await t.services.core.build();
      const inbound = (port: number) => (config.inbounds as any[]).find((i) => i.port === port);
      const master = inbound(PORTS[0]);
      expect(master.settings.clients.map((c: { email: string }) => c.email).sort()).toEqual(['alice@x', 'shared@x']);
      expect(master.settings.fallbacks).toEqual([
        expect.objectContaining({ path: '/vm', dest: version === 'v2' ? PORTS[1] : `127.0.0.1:${PORTS[1]}` }),
      ]);
      const vmess = inbound(PORTS[1]);
      expect(vmess.settings.clients.map((c: { email: string }) => c.email).sort()).toEqual(['delayed@x', 'shared@x']);
      // The trojan inbound's only client is depleted: no user runs there.
      expect(inbound(PORTS[2])?.settings?.clients ?? []).toEqual([]);
      expect(inbound(PORTS[3]).settings.clients.map((c: { email: string }) => c.email)).toEqual(['ss@x']);
      expect((config.inbounds as { protocol: string }[]).some((i) => i.protocol === 'tun')).toBe(false);

      if (CORE_BIN) {
        t.core.current = { ...t.core.current, flavour: 'v2ray' };
        const v2 = (await t.services.core.build()).config;
        const res = spawnSync(CORE_BIN, ['-test', '-config', 'stdin:'], {
          input: JSON.stringify(v2),
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect(res.status, `${res.stdout}${res.stderr}`).toBe(0);
      }
    }, 60_000);

    it('keeps a plaintext admin password of older x-ui (hashed the way this panel does)', async () => {
      const r = await importDb(await fixture(version, 'plain old password'));
      expect(r.json.success, r.json.msg).toBe(true);
      expect(r.json.obj.newAdminPassword).toBeUndefined();
      expect(r.json.obj.skipped.map((x: { what: string }) => x.what)).not.toContain('admin password of xadmin');
      await login(t, { username: 'xadmin', password: 'plain old password' });
    }, 60_000);
  });

  it('a file that is neither this panel nor 3x-ui is refused and changes nothing', async () => {
    expect(BCRYPT).toMatch(/^\$2a\$/);
    const path = join(work, `other-${db.name}.db`);
    const { createClient } = await import('@libsql/client');
    const c = createClient({ url: `file:${path}` });
    await c.execute('CREATE TABLE users (id integer primary key, username text)');
    await c.execute('CREATE TABLE inbounds (id integer primary key)');
    c.close();
    const r = await importDb(new Uint8Array(readFileSync(path)));
    expect(r.json.success).toBe(false);
    expect(r.json.msg).toMatch(/not a database of this panel or of 3x-ui/);
    expect(t.restarts).toEqual([]);
  });
});
