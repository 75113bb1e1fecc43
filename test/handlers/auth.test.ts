// The auth middleware and cross-cutting HTTP behaviour: unauthenticated answers, CSRF, Bearer tokens on every
// protected group, base path, body limit, malformed JSON, security headers, request id.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';

// Logins cost a deliberate PBKDF2 (600,000 iterations); on a loaded 2-core machine they are slow.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const XHR = { 'x-requested-with': 'XMLHttpRequest' };

describe.each(testDatabases())('auth middleware on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let bearer: string;

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    bearer = (await t.services.tokens.create('middleware')).token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers unauthenticated requests with 404 and an empty body, or 401 with the envelope for XHR', async () => {
    for (const path of ['/panel/setting/all', '/panel/api/clients/list', '/panel/core/', '/panel/anything']) {
      const plain = await call(t, 'POST', path);
      expect(plain.status, path).toBe(404);
      expect(plain.text).toBe('');
      const xhr = await call(t, 'POST', path, undefined, undefined, XHR);
      expect(xhr.status, path).toBe(401);
      expect(xhr.json).toMatchObject({ success: false });
    }
  });

  it('refuses a forged or foreign cookie', async () => {
    const forged = await call(
      t,
      'POST',
      '/panel/setting/all',
      undefined,
      { cookie: `${s.cookie}x`, csrf: s.csrf },
      XHR,
    );
    expect(forged.status).toBe(401);
    const other = await createTestApp(db);
    try {
      const foreign = await login(other);
      expect((await call(t, 'POST', '/panel/setting/all', undefined, foreign, XHR)).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('requires X-CSRF-Token on unsafe cookie requests: missing or wrong → 403', async () => {
    const missing = await call(t, 'POST', '/panel/setting/all', undefined, undefined, { cookie: s.cookie });
    expect(missing.status).toBe(403);
    expect(missing.json.success).toBe(false);
    const wrong = await call(t, 'POST', '/panel/setting/all', undefined, {
      cookie: s.cookie,
      csrf: `${s.csrf.slice(0, -1)}${s.csrf.endsWith('A') ? 'B' : 'A'}`,
    });
    expect(wrong.status).toBe(403);
    // The token of another session of the same user does not fit either.
    const s2 = await login(t);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, { cookie: s.cookie, csrf: s2.csrf })).status).toBe(
      403,
    );
    expect((await call(t, 'POST', '/panel/setting/all', undefined, s)).status).toBe(200);
    // Nothing was written by the refused update.
    const refused = await call(
      t,
      'POST',
      '/panel/setting/update',
      { subTitle: 'csrf' },
      { cookie: s.cookie, csrf: 'nope' },
    );
    expect(refused.status).toBe(403);
    expect(await t.store.settings.get('subTitle')).toBeUndefined();
  });

  it('does not ask safe methods for a CSRF token', async () => {
    const r = await call(t, 'GET', '/panel/setting/apiTokens', undefined, undefined, { cookie: s.cookie });
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(true);
  });

  it('accepts Bearer tokens without CSRF on /panel/setting/*, /panel/api/* and /panel/core/*', async () => {
    const r = await call(t, 'POST', '/panel/setting/all', undefined, { bearer });
    expect(r.status).toBe(200);
    expect(r.json.obj.webPort).toBe(2053);
    // Past the auth gate, an unknown path is a plain 404, where an unauthenticated XHR gets 401: the token was
    // accepted on every protected group (whatever routes the group has).
    for (const path of ['/panel/api/__probe', '/panel/core/__probe', '/panel/setting/__probe']) {
      expect((await call(t, 'POST', path, undefined, { bearer }, XHR)).status, path).toBe(404);
      expect((await call(t, 'POST', path, undefined, { bearer: 'x'.repeat(48) }, XHR)).status, path).toBe(401);
    }
    // A malformed Authorization header is not a session either.
    expect(
      (await call(t, 'POST', '/panel/setting/all', undefined, undefined, { ...XHR, authorization: 'Bearer' })).status,
    ).toBe(401);
  });

  it('rejects a disabled token on the next request, and a deleted one', async () => {
    const tok = await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'short-lived' }, s);
    const { id, token } = tok.json.obj;
    expect((await call(t, 'POST', '/panel/setting/all', undefined, { bearer: token })).status).toBe(200);
    expect(
      (await call(t, 'POST', `/panel/setting/apiTokens/setEnabled/${id}`, { enabled: false }, s)).json.success,
    ).toBe(true);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, { bearer: token })).status).toBe(404);
    expect(
      (await call(t, 'POST', `/panel/setting/apiTokens/setEnabled/${id}`, { enabled: true }, s)).json.success,
    ).toBe(true);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, { bearer: token })).status).toBe(200);
    expect((await call(t, 'POST', `/panel/setting/apiTokens/delete/${id}`, undefined, s)).json.success).toBe(true);
    expect((await call(t, 'POST', '/panel/setting/all', undefined, { bearer: token }, XHR)).status).toBe(401);
  });

  it('answers malformed JSON on a protected route with success=false', async () => {
    const r = await call(t, 'POST', '/panel/setting/update', '{"webPort": ', s);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ success: false, msg: 'body: malformed JSON' });
  });

  it('refuses bodies over 10 MiB with 413', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024 + 1);
    const r = await t.app.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(big.length) },
      body: big,
    });
    expect(r.status).toBe(413);
    expect((await r.json()).success).toBe(false);
    // Also when the body arrives without a declared length (streamed).
    const stream = new ReadableStream({
      start(ctrl) {
        for (let i = 0; i < 11; i++) ctrl.enqueue(new Uint8Array(1024 * 1024));
        ctrl.close();
      },
    });
    const r2 = await t.app.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(r2.status).toBe(413);
  });

  it('answers an anonymous oversized request with the same empty 404 as any other, without reading it', async () => {
    const big = new Uint8Array(20 * 1024 * 1024);
    const streamed = () =>
      new ReadableStream({
        start(ctrl) {
          for (let i = 0; i < 20; i++) ctrl.enqueue(new Uint8Array(1024 * 1024));
          ctrl.close();
        },
      });
    for (const path of [
      '/panel/api/inbounds/add',
      '/panel/api/server/importDB',
      '/panel/setting/update',
      '/no/such/path',
      '/panel/nothing',
    ]) {
      const declared = await t.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(big.length) },
        body: big,
      });
      expect(declared.status, path).toBe(404);
      expect(await declared.text(), path).toBe('');
      const r = await t.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: streamed(),
        duplex: 'half',
      } as RequestInit);
      expect(r.status, path).toBe(404);
      expect(await r.text(), path).toBe('');
    }
    // Authenticated, the limit is stated (cookie and Bearer alike).
    const authed = await t.app.request('/panel/api/inbounds/add', {
      method: 'POST',
      headers: {
        cookie: s.cookie,
        'x-csrf-token': s.csrf,
        'content-type': 'application/json',
        'content-length': String(big.length),
      },
      body: big,
    });
    expect(authed.status).toBe(413);
    expect(await authed.json()).toMatchObject({ success: false, msg: 'request body too large (limit 10 MiB)' });
  });

  it('sends security headers and a request id on every answer', async () => {
    for (const r of [await call(t, 'GET', '/csrf-token'), await call(t, 'POST', '/panel/nothing')]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const a = await call(t, 'GET', '/csrf-token');
    const b = await call(t, 'GET', '/csrf-token');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe.each(testDatabases())('base path on $name', (db) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(db, { basePath: '/secret-panel/' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves everything under the base path only; outside it is 404', async () => {
    const s = await login(t, undefined, '/secret-panel/');
    expect((await call(t, 'POST', '/secret-panel/panel/setting/all', undefined, s)).status).toBe(200);
    for (const path of [
      '/login',
      '/panel/setting/all',
      '/csrf-token',
      '/',
      '/secret-panel',
      '/other/panel/setting/all',
    ]) {
      const r = await call(
        t,
        path === '/csrf-token' ? 'GET' : 'POST',
        path,
        path === '/login' ? { username: 'admin', password: 'x' } : undefined,
        s,
      );
      expect(r.status, path).toBe(404);
      expect(r.text, path).toBe('');
    }
  });

  it('scopes the session cookie to the base path', async () => {
    const res = await t.app.request('/secret-panel/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'correct horse battery staple' }),
    });
    expect(res.headers.get('set-cookie')).toMatch(/Path=\/secret-panel\//);
  });
});
