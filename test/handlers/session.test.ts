// POST /login (JSON and form), /logout, /csrf-token, /getTwoFactorEnable, 2FA, throttling and forwarded
// addresses — through app.request() on libsql and PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { generate } from 'otplib';
import { testDatabases } from '../support/databases.js';
import { ADMIN, call, createTestApp, login, type TestApp } from '../support/app.js';
import { createPanelApp } from '../../handlers/app.js';
import type { Logger } from '../../handlers/context.js';

// Logins cost a deliberate PBKDF2 (600,000 iterations); on a loaded 2-core machine they are slow.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe.each(testDatabases())('session on $name', (db) => {
  let t: TestApp;
  const logLines: string[] = [];
  let app: TestApp['app'];

  beforeAll(async () => {
    t = await createTestApp(db);
    // The same services behind an app with a capturing logger, to prove passwords never reach the log.
    const capture = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
      logLines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
    const logger: Logger = {
      debug: capture('debug'),
      info: capture('info'),
      warn: capture('warn'),
      error: capture('error'),
    };
    app = createPanelApp({ services: t.services, clientIp: () => t.peer.ip, basePath: '/', secure: false, logger });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => {
    t.peer.ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  });

  it('logs in with JSON: cookie HttpOnly, SameSite=Lax, path /, max-age from sessionMaxAge', async () => {
    const res = await app.request('/login', json(ADMIN));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^panel_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=21600/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('logs in with a form body', async () => {
    const res = await app.request('/login', { method: 'POST', body: new URLSearchParams(ADMIN) });
    expect((await res.json()).success).toBe(true);
    expect(res.headers.get('set-cookie')).toMatch(/^panel_session=/);
  });

  it('refuses a wrong password and a wrong username with the same message, never echoing or logging the password', async () => {
    logLines.length = 0;
    const wrongPw = await call({ ...t, app }, 'POST', '/login', {
      username: ADMIN.username,
      password: 'Hunter2-secret',
    });
    const wrongUser = await call({ ...t, app }, 'POST', '/login', { username: 'nobody', password: ADMIN.password });
    expect(wrongPw.json).toEqual({ success: false, msg: 'wrong username or password', obj: null });
    expect(wrongUser.json.msg).toBe(wrongPw.json.msg);
    expect(wrongPw.headers.get('set-cookie')).toBeNull();
    expect(wrongPw.text).not.toContain('Hunter2');
    expect(logLines.some((l) => l.includes('login failed'))).toBe(true);
    expect(logLines.join('\n')).not.toContain('Hunter2');
    expect(logLines.join('\n')).not.toContain(ADMIN.password);
  });

  it('answers missing fields and malformed JSON with success=false naming the field', async () => {
    const missing = await call(t, 'POST', '/login', { username: 'admin' });
    expect(missing.status).toBe(200);
    expect(missing.json.success).toBe(false);
    expect(missing.json.msg).toMatch(/^password: /);
    const malformed = await call(t, 'POST', '/login', '{"username": "admin", ');
    expect(malformed.status).toBe(200);
    expect(malformed.json).toMatchObject({ success: false, msg: 'body: malformed JSON' });
    // Without the JSON content type a JSON text is not read as JSON.
    const untyped = await t.app.request('/login', { method: 'POST', body: JSON.stringify(ADMIN) });
    expect((await untyped.json()).success).toBe(false);
  });

  it('binds the CSRF token to the session; without a session it is random', async () => {
    const s1 = await login(t);
    const again = await call(t, 'GET', '/csrf-token', undefined, undefined, { cookie: s1.cookie });
    expect(again.json.obj).toBe(s1.csrf);
    const anon1 = await call(t, 'GET', '/csrf-token');
    const anon2 = await call(t, 'GET', '/csrf-token');
    expect(anon1.json.success).toBe(true);
    expect(anon1.json.obj).not.toBe(anon2.json.obj);
    expect(anon1.json.obj).not.toBe(s1.csrf);
  });

  it('logout clears the cookie and the old cookie no longer works', async () => {
    const s = await login(t);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).json.success).toBe(true);
    const out = await call(t, 'POST', '/logout', undefined, s);
    expect(out.json.success).toBe(true);
    expect(out.headers.get('set-cookie')).toMatch(/panel_session=;.*Max-Age=0/);
    const after = await call(t, 'POST', '/panel/setting/all', undefined, s);
    expect(after.status).toBe(404);
  });

  it('logout of a live session needs its CSRF token (another site cannot sign the admin out)', async () => {
    const s = await login(t);
    const forged = await call(t, 'POST', '/logout', undefined, undefined, { cookie: s.cookie });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('set-cookie')).toBeNull();
    expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).json.success).toBe(true); // still signed in
    const foreign = await call(t, 'POST', '/logout', undefined, undefined, {
      cookie: s.cookie,
      'x-csrf-token': 'x'.repeat(43),
    });
    expect(foreign.status).toBe(403);
    // Without a live session there is nothing to protect: the cookie is just cleared.
    const anonymous = await call(t, 'POST', '/logout');
    expect(anonymous.json.success).toBe(true);
    expect((await call(t, 'POST', '/logout', undefined, s)).json.success).toBe(true);
  });

  it('expires the session after sessionMaxAge minutes (by the clock)', async () => {
    const s = await login(t);
    t.clock.advance(359 * 60_000);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).status).toBe(200);
    t.clock.advance(2 * 60_000);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).status).toBe(404);
  });

  describe('two-factor', () => {
    let s: { cookie: string; csrf: string };
    beforeAll(async () => {
      s = await login(t);
      expect((await call(t, 'POST', '/getTwoFactorEnable')).json).toMatchObject({ success: true, obj: false });
      const on = await call(
        t,
        'POST',
        '/panel/setting/update',
        { twoFactorEnable: true, twoFactorToken: TOTP_SECRET },
        s,
      );
      expect(on.json.success).toBe(true);
    });
    afterAll(async () => {
      await t.services.settings.update({ twoFactorEnable: false, twoFactorToken: '' });
    });

    const code = (offsetSec = 0) =>
      generate({ secret: TOTP_SECRET, epoch: Math.floor(t.clock.now() / 1000) + offsetSec });

    it('getTwoFactorEnable says so', async () => {
      expect((await call(t, 'POST', '/getTwoFactorEnable')).json).toMatchObject({ success: true, obj: true });
    });

    it('accepts the right code (and one step of drift)', async () => {
      expect((await call(t, 'POST', '/login', { ...ADMIN, twoFactorCode: await code() })).json.success).toBe(true);
      expect((await call(t, 'POST', '/login', { ...ADMIN, twoFactorCode: await code(-30) })).json.success).toBe(true);
    });

    it('refuses a wrong, stale, malformed or missing code with the login failure message', async () => {
      const right = await code();
      const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
      for (const twoFactorCode of [wrong, await code(-120), 'abcdef', undefined]) {
        t.peer.ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
        const r = await call(t, 'POST', '/login', {
          ...ADMIN,
          ...(twoFactorCode === undefined ? {} : { twoFactorCode }),
        });
        expect(r.json, String(twoFactorCode)).toMatchObject({ success: false, msg: 'wrong username or password' });
        expect(r.headers.get('set-cookie')).toBeNull();
      }
    });
  });

  describe('throttling', () => {
    it('blocks (ip, username) after 5 failures in 5 minutes for 15 minutes, with the same message', async () => {
      t.peer.ip = '203.0.113.50';
      for (let i = 0; i < 5; i++) {
        const r = await call(t, 'POST', '/login', { username: ADMIN.username, password: `wrong-${i}` });
        expect(r.json.msg).toBe('wrong username or password');
      }
      // Even the right password is refused now, with the same message.
      const blocked = await call(t, 'POST', '/login', ADMIN);
      expect(blocked.json).toEqual({ success: false, msg: 'wrong username or password', obj: null });
      // Another address, or another username from this address, is not blocked.
      t.peer.ip = '203.0.113.51';
      expect((await call(t, 'POST', '/login', ADMIN)).json.success).toBe(true);
      t.peer.ip = '203.0.113.50';
      t.clock.advance(14 * 60_000);
      expect((await call(t, 'POST', '/login', ADMIN)).json.success).toBe(false);
      t.clock.advance(60_000 + 1);
      expect((await call(t, 'POST', '/login', ADMIN)).json.success).toBe(true);
    });

    it('believes X-Forwarded-For / X-Real-IP only from a trusted proxy', async () => {
      // From an untrusted peer, a forged X-Forwarded-For does not change the throttled address.
      t.peer.ip = '203.0.113.60';
      for (let i = 0; i < 5; i++) {
        await call(t, 'POST', '/login', { username: ADMIN.username, password: 'nope' }, undefined, {
          'x-forwarded-for': `198.18.0.${i}`,
        });
      }
      const forged = await call(t, 'POST', '/login', ADMIN, undefined, {
        'x-forwarded-for': '198.18.0.99',
        'x-real-ip': '198.18.0.98',
      });
      expect(forged.json.success).toBe(false);

      // Behind the trusted proxy 127.0.0.1 (the default trustedProxyCIDRs), each client is throttled on its own
      // address.
      t.peer.ip = '127.0.0.1';
      for (let i = 0; i < 5; i++) {
        await call(t, 'POST', '/login', { username: ADMIN.username, password: 'nope' }, undefined, {
          'x-forwarded-for': '198.18.1.1',
        });
      }
      expect(
        (await call(t, 'POST', '/login', ADMIN, undefined, { 'x-forwarded-for': '198.18.1.1' })).json.success,
      ).toBe(false);
      expect(
        (await call(t, 'POST', '/login', ADMIN, undefined, { 'x-forwarded-for': '198.18.1.2' })).json.success,
      ).toBe(true);
      expect((await call(t, 'POST', '/login', ADMIN, undefined, { 'x-real-ip': '198.18.1.3' })).json.success).toBe(
        true,
      );
      // A client behind the proxy cannot escape its block by prepending its own X-Forwarded-For entry.
      expect(
        (await call(t, 'POST', '/login', ADMIN, undefined, { 'x-forwarded-for': '1.2.3.4, 198.18.1.1' })).json.success,
      ).toBe(false);
    });

    it('slows a username down whatever the addresses a trusted proxy reports (rotating X-Forwarded-For)', async () => {
      t.peer.ip = '127.0.0.1'; // a local process: loopback is a trusted proxy by default
      const guess = (i: number, password: string) =>
        call({ ...t, app }, 'POST', '/login', { username: ADMIN.username, password }, undefined, {
          'x-forwarded-for': `198.18.${(i >> 8) & 255}.${i & 255}`,
          'x-real-ip': `198.19.0.${i & 255}`,
        });
      logLines.length = 0;
      for (let i = 0; i < 40; i++) {
        const r = await guess(i, `wrong-${i}`);
        expect(r.json.msg).toBe('wrong username or password');
        t.clock.advance(50); // 40 guesses within 2 seconds
      }
      // After the free failures the account waits 1 s, 2 s, 4 s…: even the right password from a new address is
      // refused.
      const right = await guess(1000, ADMIN.password);
      expect(right.json).toEqual({ success: false, msg: 'wrong username or password', obj: null });
      // Most of the 40 guesses were refused without checking the password at all.
      expect(logLines.filter((l) => l.includes('"reason":"throttled"')).length).toBeGreaterThanOrEqual(25);
      // Once the wait is over, the right password works, from any address.
      t.clock.advance(15 * 60_000);
      expect((await guess(1001, ADMIN.password)).json.success).toBe(true);
    });
  });
});
