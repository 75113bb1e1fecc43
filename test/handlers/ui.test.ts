// Serving the browser UI (../shared/UI.md) through app.request() on libsql and PostgreSQL: the login page at
// {base}, the app pages behind the session with ?next= remembered, precompressed immutable assets, CSP and the
// <meta> tags, any base path, and page URLs that never shadow the API.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { createTestApp, login, type TestApp } from '../support/app.js';
import { createPanelApp } from '../../handlers/app.js';
import { BASE_PLACEHOLDER, UI_PAGES, safeNext, type UiAssets } from '../../handlers/ui.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const enc = new TextEncoder();
const fakeUi: UiAssets = {
  loginHtml: `<!doctype html><html><head><script type="module" src="${BASE_PLACEHOLDER}assets/login-abc.js"></script></head><body>login</body></html>`,
  appHtml: `<!doctype html><html><head><script type="module" src="${BASE_PLACEHOLDER}assets/app-abc.js"></script></head><body>app</body></html>`,
  asset: (name) =>
    name === 'app-abc.js'
      ? { body: enc.encode('plain'), br: enc.encode('brotli'), gzip: enc.encode('gzip') }
      : name === 'x-abc.css'
        ? { body: enc.encode('css') }
        : undefined,
};

describe.each(testDatabases())('browser UI serving on $name', (db) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(db);
  });
  afterAll(async () => {
    await t.close();
  });

  for (const base of ['/', '/p4n3l/']) {
    describe(`base path ${base}`, () => {
      const app = () =>
        createPanelApp({
          services: t.services,
          clientIp: () => '198.51.100.9',
          basePath: base,
          secure: false,
          ui: fakeUi,
        });

      it('GET {base} is the login page with the CSP and the base path in <meta>; with a session it redirects to the app', async () => {
        const a = app();
        const res = await a.request(base);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
        const html = await res.text();
        expect(html).toContain(`<meta name="panel-base" content="${base}">`);
        expect(html).toContain(`src="${base}assets/login-abc.js"`);
        expect(html).not.toContain(BASE_PLACEHOLDER);

        const s = await login({ ...t, app: a }, undefined, base);
        const again = await a.request(base, { headers: { cookie: s.cookie } });
        expect(again.status).toBe(302);
        expect(again.headers.get('location')).toBe(`${base}panel/`);
        const next = await a.request(`${base}?next=${encodeURIComponent('panel/clients?page=3')}`, {
          headers: { cookie: s.cookie },
        });
        expect(next.headers.get('location')).toBe(`${base}panel/clients?page=3`);
        // Only app pages are redirect targets.
        const evil = await a.request(`${base}?next=${encodeURIComponent('//evil.example/')}`, {
          headers: { cookie: s.cookie },
        });
        expect(evil.headers.get('location')).toBe(`${base}panel/`);
      });

      it('every page URL needs the session (302 to the login page with the page remembered) and carries the CSRF token', async () => {
        const a = app();
        const s = await login({ ...t, app: a }, undefined, base);
        for (const p of UI_PAGES) {
          const anon = await a.request(`${base}panel/${p}?search=a%20b`);
          expect(anon.status, p).toBe(302);
          expect(anon.headers.get('location')).toBe(`${base}?next=${encodeURIComponent(`panel/${p}?search=a%20b`)}`);
          const res = await a.request(`${base}panel/${p}`, { headers: { cookie: s.cookie } });
          expect(res.status, p).toBe(200);
          expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
          const html = await res.text();
          expect(html).toContain('<body>app</body>');
          expect(html).toContain(`<meta name="csrf-token" content="${s.csrf}">`);
        }
        const bare = await a.request(`${base}panel`, { headers: { cookie: s.cookie } });
        expect(bare.status).toBe(302);
        expect(bare.headers.get('location')).toBe(`${base}panel/`);
      });

      it('page URLs do not shadow the API: the API answers as before, with and without a session', async () => {
        const a = app();
        expect((await a.request(`${base}panel/api/inbounds/list`)).status).toBe(404);
        const xhr = await a.request(`${base}panel/api/inbounds/list`, {
          headers: { 'x-requested-with': 'XMLHttpRequest' },
        });
        expect(xhr.status).toBe(401);
        const s = await login({ ...t, app: a }, undefined, base);
        const list = await a.request(`${base}panel/api/inbounds/list`, { headers: { cookie: s.cookie } });
        expect((await list.json()).success).toBe(true);
        const settings = await a.request(`${base}panel/setting/all`, {
          method: 'POST',
          headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
        });
        expect((await settings.json()).success).toBe(true);
      });

      it('assets are immutable and precompressed by Accept-Encoding; unknown names are 404', async () => {
        const a = app();
        const br = await a.request(`${base}assets/app-abc.js`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
        expect(br.status).toBe(200);
        expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(br.headers.get('content-encoding')).toBe('br');
        expect(br.headers.get('vary')).toBe('Accept-Encoding');
        expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
        expect(await br.text()).toBe('brotli');
        const gz = await a.request(`${base}assets/app-abc.js`, { headers: { 'accept-encoding': 'gzip' } });
        expect(gz.headers.get('content-encoding')).toBe('gzip');
        const plain = await a.request(`${base}assets/app-abc.js`);
        expect(plain.headers.get('content-encoding')).toBeNull();
        expect(await plain.text()).toBe('plain');
        const css = await a.request(`${base}assets/x-abc.css`, { headers: { 'accept-encoding': 'br' } });
        expect(css.headers.get('content-encoding')).toBeNull();
        expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
        expect((await a.request(`${base}assets/nope.js`)).status).toBe(404);
        expect((await a.request(`${base}assets/..%2Fapp.html`)).status).toBe(404);
      });
    });
  }

  it('without a built UI the page URLs answer 404 as before', async () => {
    const a = createPanelApp({ services: t.services, clientIp: () => '198.51.100.9', basePath: '/', secure: false });
    expect((await a.request('/')).status).toBe(404);
    expect((await a.request('/panel/clients')).status).toBe(404);
  });
});

describe('safeNext', () => {
  it('accepts only app pages', () => {
    expect(safeNext('panel/clients?page=2')).toBe('panel/clients?page=2');
    expect(safeNext('panel/')).toBe('panel/');
    for (const bad of [
      '//evil',
      'https://evil',
      'panel//evil',
      'panel/api/inbounds/list',
      'panel/unknown',
      'panel/\\evil',
      undefined,
      '',
    ]) {
      expect(safeNext(bad), String(bad)).toBeNull();
    }
  });
});
