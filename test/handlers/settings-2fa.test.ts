// /panel/setting/twoFactor/enable and /disable (beyond the spec: the settings page's enrolment): the code is
// checked by the server against the given (enable) or stored (disable) secret, wrong codes change nothing and are
// throttled, and login then asks for the code.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generate } from 'otplib';
import { testDatabases } from '../support/databases.js';
import { ADMIN, call, createTestApp, login, type Session, type TestApp } from '../support/app.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const SECRET = 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TFOQ'; // 34 base32 characters
const OTHER = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe.each(testDatabases())('two-factor enrolment on $name', (db) => {
  let t: TestApp;
  let s: Session;

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const code = (secret: string, offsetSec = 0) =>
    generate({ secret, epoch: Math.floor(t.clock.now() / 1000) + offsetSec });
  const wrong = async (secret: string) => ((await code(secret)) === '000000' ? '111111' : '000000');
  const stored = async () => {
    const all = await t.services.settings.stored();
    return { twoFactorEnable: all.twoFactorEnable, twoFactorToken: all.twoFactorToken };
  };
  const enabled = async () => (await call(t, 'POST', '/getTwoFactorEnable')).json.obj;

  it('refuses a wrong code, a malformed secret and a missing code; nothing is stored', async () => {
    let r = await call(t, 'POST', '/panel/setting/twoFactor/enable', { secret: SECRET, code: await wrong(SECRET) }, s);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ success: false, msg: expect.stringMatching(/^code: wrong code/) });
    // A code of another secret is wrong for this one.
    r = await call(t, 'POST', '/panel/setting/twoFactor/enable', { secret: SECRET, code: await code(OTHER) }, s);
    expect(r.json.success).toBe(false);
    r = await call(t, 'POST', '/panel/setting/twoFactor/enable', { secret: 'ABC', code: '123456' }, s);
    expect(r.json).toMatchObject({ success: false, msg: expect.stringMatching(/^secret: /) });
    r = await call(t, 'POST', '/panel/setting/twoFactor/enable', { secret: SECRET }, s);
    expect(r.json).toMatchObject({ success: false, msg: expect.stringMatching(/^code: /) });
    expect(await stored()).toEqual({ twoFactorEnable: false, twoFactorToken: '' });
    expect(await enabled()).toBe(false);
    // Disabling while off says so.
    r = await call(t, 'POST', '/panel/setting/twoFactor/disable', { code: '123456' }, s);
    expect(r.json).toMatchObject({ success: false, msg: expect.stringMatching(/not on/) });
  });

  it('turns on with the right code (spaces and lowercase in the secret accepted); login then needs the code', async () => {
    const spaced = SECRET.toLowerCase().replace(/(.{4})/g, '$1 ');
    const r = await call(t, 'POST', '/panel/setting/twoFactor/enable', { secret: spaced, code: await code(SECRET) }, s);
    expect(r.json).toMatchObject({ success: true, msg: 'two-factor login is on' });
    expect(await stored()).toEqual({ twoFactorEnable: true, twoFactorToken: SECRET });
    expect(await enabled()).toBe(true);
    // The session that turned it on goes on working.
    expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).json.success).toBe(true);
    expect((await call(t, 'POST', '/login', ADMIN)).json.success).toBe(false);
    expect((await call(t, 'POST', '/login', { ...ADMIN, twoFactorCode: await code(SECRET) })).json.success).toBe(true);
    // While on, a new secret is refused even with its right code (turn it off first).
    const again = await call(
      t,
      'POST',
      '/panel/setting/twoFactor/enable',
      { secret: OTHER, code: await code(OTHER) },
      s,
    );
    expect(again.json).toMatchObject({ success: false, msg: expect.stringMatching(/already on/) });
    expect((await stored()).twoFactorToken).toBe(SECRET);
  });

  it('turns off only with a code of the stored secret', async () => {
    let r = await call(t, 'POST', '/panel/setting/twoFactor/disable', { code: await wrong(SECRET) }, s);
    expect(r.json).toMatchObject({ success: false, msg: expect.stringMatching(/^code: wrong code/) });
    r = await call(t, 'POST', '/panel/setting/twoFactor/disable', { code: await code(OTHER) }, s);
    expect(r.json.success).toBe(false);
    expect(await enabled()).toBe(true);
    r = await call(t, 'POST', '/panel/setting/twoFactor/disable', { code: await code(SECRET, -30) }, s);
    expect(r.json).toMatchObject({ success: true, msg: 'two-factor login is off' });
    expect(await stored()).toEqual({ twoFactorEnable: false, twoFactorToken: '' });
    expect((await call(t, 'POST', '/login', ADMIN)).json.success).toBe(true);
  });

  it('throttles wrong codes: after 5 the right one is refused too, until the block ends', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await call(
        t,
        'POST',
        '/panel/setting/twoFactor/enable',
        { secret: SECRET, code: await wrong(SECRET) },
        s,
      );
      expect(r.json.success).toBe(false);
    }
    const blocked = await call(
      t,
      'POST',
      '/panel/setting/twoFactor/enable',
      { secret: SECRET, code: await code(SECRET) },
      s,
    );
    expect(blocked.json).toMatchObject({ success: false, msg: expect.stringMatching(/too many wrong codes/) });
    expect(await enabled()).toBe(false);
    // Logins have their own counters: the admin can still log in.
    expect((await call(t, 'POST', '/login', ADMIN)).json.success).toBe(true);
    t.clock.advance(16 * 60_000);
    const ok = await call(
      t,
      'POST',
      '/panel/setting/twoFactor/enable',
      { secret: SECRET, code: await code(SECRET) },
      s,
    );
    expect(ok.json.success, ok.json.msg).toBe(true);
  });

  it('needs a session or a token like every settings route, and CSRF with a session', async () => {
    const body = { secret: SECRET, code: '123456' };
    expect((await call(t, 'POST', '/panel/setting/twoFactor/enable', body)).status).toBe(404);
    expect((await call(t, 'POST', '/panel/setting/twoFactor/disable', { code: '1' })).status).toBe(404);
    const noCsrf = await call(t, 'POST', '/panel/setting/twoFactor/disable', { code: '1' }, { ...s, csrf: 'x' });
    expect(noCsrf.status).toBe(403);
  });
});
