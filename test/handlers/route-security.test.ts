// Every route of the panel app, walked from its registered routes (a new route is covered without anyone
// adding it here): no credentials → 404 with an empty body (401 envelope for XHR); an unsafe cookie request
// without a valid X-CSRF-Token → 403; a Bearer token passes authentication on every management route; /ws refuses
// Bearer. Only the session routes are open.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { registeredRoutes, samplePath, type RegisteredRoute } from '../support/routes.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 90_000 });

const OPEN = new Set(['POST /login', 'POST /logout', 'GET /csrf-token', 'POST /getTwoFactorEnable']);
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const XHR = { 'x-requested-with': 'XMLHttpRequest' };
/** Routes that would stop or replace what the walk runs on. */
const NOT_WITH_BEARER = new Set(['POST /panel/api/server/importDB']);

describe.each(testDatabases())('route security walk on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let bearer: string;
  let routes: RegisteredRoute[];

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    // Token 1 is what the walk's `/apiTokens/delete/1` removes; the walk's own token comes after it.
    await t.services.tokens.create('sample');
    bearer = (await t.services.tokens.create('walk')).token;
    routes = registeredRoutes(t.app).filter((r) => !OPEN.has(`${r.method} ${r.path}`));
  });
  afterAll(async () => {
    await t.close();
  });

  it('walks the whole panel app', () => {
    expect(routes.length).toBeGreaterThan(90);
    expect(routes.some((r) => r.path === '/ws')).toBe(true);
  });

  it('answers every protected route without credentials with an empty 404, or the 401 envelope for XHR', async () => {
    for (const r of routes) {
      const path = samplePath(r.path);
      const plain = await call(t, r.method, path);
      expect(plain.status, `${r.method} ${path}`).toBe(404);
      expect(plain.text, `${r.method} ${path}`).toBe('');
      const xhr = await call(t, r.method, path, undefined, undefined, XHR);
      expect(xhr.status, `${r.method} ${path}`).toBe(401);
      expect(xhr.json, `${r.method} ${path}`).toMatchObject({ success: false });
    }
  });

  it('refuses every unsafe cookie request without a valid X-CSRF-Token with 403', async () => {
    for (const r of routes.filter((x) => !SAFE.has(x.method))) {
      const path = samplePath(r.path);
      const missing = await call(t, r.method, path, undefined, undefined, { cookie: s.cookie });
      expect(missing.status, `${r.method} ${path}`).toBe(403);
      const wrong = await call(t, r.method, path, undefined, { cookie: s.cookie, csrf: 'x'.repeat(43) });
      expect(wrong.status, `${r.method} ${path}`).toBe(403);
    }
  });

  it('lets a Bearer token through on every management route, and refuses it on /ws', async () => {
    for (const r of routes.filter((x) => x.path !== '/ws' && !NOT_WITH_BEARER.has(`${x.method} ${x.path}`))) {
      const path = samplePath(r.path);
      const res = await call(t, r.method, path, undefined, { bearer }, XHR);
      // Past authentication: the route's own answer (the envelope, a file or a page), never the auth refusals.
      expect([401, 403, 404], `${r.method} ${path}: ${res.text.slice(0, 200)}`).not.toContain(res.status);
      expect(res.status, `${r.method} ${path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    }
    const ws = await call(t, 'GET', '/ws', undefined, { bearer });
    expect(ws.status).toBe(404);
    expect((await call(t, 'GET', '/ws', undefined, { bearer }, XHR)).status).toBe(401);
  });

  it('importDB with a Bearer token gets past authentication to its own input check', async () => {
    const r = await call(t, 'POST', '/panel/api/server/importDB', new URLSearchParams({ db: 'x' }), { bearer });
    expect(r.json).toMatchObject({ success: false, msg: expect.stringMatching(/^db: /) });
  });
});
