// /panel/setting/*: all, defaultSettings, update (and every rejection, with proof nothing was written),
// updateUser, restartPanel, getDefaultJsonConfig, environment overrides.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { ADMIN, call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { DEFAULT_SETTINGS } from '../../domain/settings/schema.js';

// Logins cost a deliberate PBKDF2 (600,000 iterations); on a loaded 2-core machine they are slow.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

describe.each(testDatabases())('settings on $name', (db) => {
  let t: TestApp;
  let s: Session;

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const storedSettings = async () => {
    const all = await t.store.settings.all();
    return Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('_')));
  };

  it('/all returns every key with its default on a fresh database', async () => {
    const r = await call(t, 'POST', '/panel/setting/all', undefined, s);
    expect(r.json).toMatchObject({ success: true });
    expect(r.json.obj).toEqual(DEFAULT_SETTINGS);
  });

  it('/defaultSettings computes subscription URLs for the request host', async () => {
    const r = await call(t, 'POST', '/panel/setting/defaultSettings', undefined, s, { host: 'vpn.example.com:2053' });
    expect(r.json.success).toBe(true);
    expect(r.json.obj).toMatchObject({
      subURI: 'http://vpn.example.com:10882/sub/',
      subJsonURI: 'http://vpn.example.com:10882/json/',
      subClashURI: 'http://vpn.example.com:10882/clash/',
      webPort: 2053,
    });
  });

  it('/update validates, writes in one go, ignores unknown keys and coerces form-style strings', async () => {
    const r = await call(
      t,
      'POST',
      '/panel/setting/update',
      {
        webPort: '8443',
        subTitle: 'My VPN',
        subEnable: 'false',
        webBasePath: 'admin',
        someUiKey: 'ignored',
      },
      s,
    );
    expect(r.json.success).toBe(true);
    expect(r.json.obj).toMatchObject({ webPort: 8443, subTitle: 'My VPN', subEnable: false, webBasePath: '/admin/' });
    expect(await storedSettings()).toEqual({
      webPort: 8443,
      subTitle: 'My VPN',
      subEnable: false,
      webBasePath: '/admin/',
    });
    expect(t.emitted.filter((e) => e.name === 'settings.changed').at(-1)?.payload).toEqual({
      keys: ['webPort', 'webBasePath', 'subEnable', 'subTitle'],
    });
    // Form bodies work too.
    const form = await call(
      t,
      'POST',
      '/panel/setting/update',
      new URLSearchParams({ subTitle: 'Form VPN', subEnable: 'true' }),
      s,
    );
    expect(form.json.success).toBe(true);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).json.obj).toMatchObject({
      subTitle: 'Form VPN',
      subEnable: true,
    });
  });

  it.each([
    ['a port out of range', { subTitle: 'changed', webPort: 70000 }, /^webPort: /],
    ['a port of zero', { subPort: 0 }, /^subPort: /],
    ['a wrong type', { subTitle: 'changed', subEnable: 'maybe' }, /^subEnable: /],
    ['a number for a string', { subTitle: 42 }, /^subTitle: /],
    ['a malformed base path', { subTitle: 'changed', webBasePath: '/a b/' }, /^webBasePath: /],
    ['a base path with ..', { webBasePath: '/../etc/' }, /^webBasePath: /],
    [
      'a certificate without its key',
      { subTitle: 'changed', webCertFile: '/etc/ssl/panel.crt' },
      /^webKeyFile: .*together/,
    ],
    ['a key without its certificate', { subKeyFile: '/etc/ssl/sub.key' }, /^subCertFile: .*together/],
    [
      'an unreadable certificate file',
      { webCertFile: '/missing/panel.crt', webKeyFile: '/readable/panel.key' },
      /^webCertFile: .*not readable/,
    ],
    [
      'an unreadable key file',
      { subCertFile: '/readable/panel.crt', subKeyFile: '/missing/sub.key' },
      /^subKeyFile: .*not readable/,
    ],
    ['malformed trusted proxies', { trustedProxyCIDRs: '10.0.0.0/8,banana' }, /^trustedProxyCIDRs: /],
    ['2FA on without a secret', { twoFactorEnable: true }, /^twoFactorToken: /],
    ['a short TOTP secret', { twoFactorEnable: true, twoFactorToken: 'ABC' }, /^twoFactorToken: /],
    ['the panel port for the subscription server', { subPort: 8443 }, /^subPort: .*share/],
    ['a bad time zone', { timeLocation: 'Nowhere/Land' }, /^timeLocation: /],
  ])('/update rejects %s, naming the key, and writes nothing', async (_name, body, msg) => {
    t.readableFiles.add('/readable/panel.crt');
    t.readableFiles.add('/readable/panel.key');
    const before = await storedSettings();
    const emittedBefore = t.emitted.length;
    const r = await call(t, 'POST', '/panel/setting/update', body, s);
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(false);
    expect(r.json.msg).toMatch(msg);
    expect(await storedSettings()).toEqual(before);
    expect(t.emitted.length).toBe(emittedBefore);
  });

  it('/update accepts a readable certificate pair', async () => {
    t.readableFiles.add('/etc/ssl/sub.crt');
    t.readableFiles.add('/etc/ssl/sub.key');
    const r = await call(
      t,
      'POST',
      '/panel/setting/update',
      { subCertFile: '/etc/ssl/sub.crt', subKeyFile: '/etc/ssl/sub.key' },
      s,
    );
    expect(r.json.success).toBe(true);
    const d = await call(t, 'POST', '/panel/setting/defaultSettings', undefined, s, { host: 'h.example' });
    expect(d.json.obj.subJsonURI).toBe('https://h.example:10882/json/');
    expect((await call(t, 'POST', '/panel/setting/update', { subCertFile: '', subKeyFile: '' }, s)).json.success).toBe(
      true,
    );
  });

  it('/update refuses a body that is not an object', async () => {
    const r = await call(t, 'POST', '/panel/setting/update', [1, 2], s);
    expect(r.json).toMatchObject({ success: false });
    expect(r.json.msg).toMatch(/^body: /);
  });

  it('/getDefaultJsonConfig returns the built-in core template', async () => {
    const r = await call(t, 'GET', '/panel/setting/getDefaultJsonConfig', undefined, s);
    expect(r.json.success).toBe(true);
    expect(r.json.obj).toMatchObject({
      log: expect.any(Object),
      inbounds: expect.any(Array),
      outbounds: expect.any(Array),
      routing: { rules: expect.any(Array) },
    });
  });

  it('/restartPanel answers first and asks the adapter for a restart in 3 seconds', async () => {
    const before = t.restarts.length;
    const r = await call(t, 'POST', '/panel/setting/restartPanel', undefined, s);
    expect(r.json.success).toBe(true);
    expect(t.restarts.slice(before)).toEqual([3000]);
  });

  describe('/updateUser', () => {
    it('needs the current credentials and writes nothing when they are wrong', async () => {
      const hashBefore = (await t.store.users.first())!.passwordHash;
      for (const body of [
        { oldUsername: ADMIN.username, oldPassword: 'wrong', newUsername: 'root', newPassword: 'new-pass-1' },
        { oldUsername: 'someone', oldPassword: ADMIN.password, newUsername: 'root', newPassword: 'new-pass-1' },
      ]) {
        const r = await call(t, 'POST', '/panel/setting/updateUser', body, s);
        expect(r.json.success).toBe(false);
        expect(r.json.msg).toMatch(/current username or password is wrong/);
      }
      const empty = await call(
        t,
        'POST',
        '/panel/setting/updateUser',
        { oldUsername: ADMIN.username, oldPassword: ADMIN.password, newUsername: '', newPassword: 'x' },
        s,
      );
      expect(empty.json).toMatchObject({ success: false });
      expect(empty.json.msg).toMatch(/^newUsername: /);
      expect((await t.store.users.first())!.passwordHash).toBe(hashBefore);
    });

    it("changes the credential, refreshes the caller's session and signs every other session out", async () => {
      const other = await login(t);
      const r = await call(
        t,
        'POST',
        '/panel/setting/updateUser',
        {
          oldUsername: ADMIN.username,
          oldPassword: ADMIN.password,
          newUsername: 'root',
          newPassword: 'a new long password',
        },
        s,
      );
      expect(r.json.success).toBe(true);
      const fresh = r.headers.get('set-cookie')!.split(';')[0]!;
      // The caller continues with the refreshed cookie (and the CSRF token of its new session).
      const csrf = (await call(t, 'GET', '/csrf-token', undefined, undefined, { cookie: fresh })).json.obj;
      expect((await call(t, 'POST', '/panel/setting/all', undefined, { cookie: fresh, csrf })).status).toBe(200);
      // The old cookie of the caller and every other session are refused.
      expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).status).toBe(404);
      expect((await call(t, 'POST', '/panel/setting/all', undefined, other)).status).toBe(404);
      // The new credential logs in, the old one does not.
      expect((await call(t, 'POST', '/login', ADMIN)).json.success).toBe(false);
      const again = await login(t, { username: 'root', password: 'a new long password' });
      s = again;
      // Back to the original credential for the other tests.
      const back = await call(
        t,
        'POST',
        '/panel/setting/updateUser',
        {
          oldUsername: 'root',
          oldPassword: 'a new long password',
          newUsername: ADMIN.username,
          newPassword: ADMIN.password,
        },
        s,
      );
      expect(back.json.success).toBe(true);
      s = await login(t);
    });
  });
});

describe.each(testDatabases())('settings with environment overrides on $name', (db) => {
  let t: TestApp;
  let s: Session;
  beforeAll(async () => {
    t = await createTestApp(db, { settingsOverrides: { webPort: 3000, webListen: '127.0.0.1' } });
    s = await login(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('the environment wins over the stored value while set, and saving the blob back stores nothing for it', async () => {
    const all = (await call(t, 'POST', '/panel/setting/all', undefined, s)).json.obj;
    expect(all).toMatchObject({ webPort: 3000, webListen: '127.0.0.1' });
    // A UI saves the whole blob back: the overridden values are not copied into the database.
    const r = await call(t, 'POST', '/panel/setting/update', { ...all, subTitle: 'x' }, s);
    expect(r.json.success).toBe(true);
    const stored = await t.store.settings.all();
    expect(stored.webPort).toBeUndefined();
    expect(stored.webListen).toBeUndefined();
    expect(stored.subTitle).toBe('x');
    // A different value is stored (it applies once the variable is unset); the effective value stays the env's.
    const r2 = await call(t, 'POST', '/panel/setting/update', { webPort: 4000 }, s);
    expect(r2.json.success).toBe(true);
    expect(r2.json.obj.webPort).toBe(3000);
    expect((await t.store.settings.all()).webPort).toBe(4000);
  });
});
