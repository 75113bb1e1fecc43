// The browser UI (../shared/UI.md): the login page at {base}, the app under {base}panel/<page>, hashed assets
// under {base}assets/. The built files come in as a dependency (the Node adapter reads dist/ui), so this stays
// web-standard. Pages carry the base path and the CSRF token in <meta>, so the CSP needs no inline script.
import { Hono } from 'hono';
import type { AppContext, AppEnv } from './context.js';
import { sessionOf } from './auth.js';

export interface UiAsset {
  body: Uint8Array;
  br?: Uint8Array;
  gzip?: Uint8Array;
}

export interface UiAssets {
  /** The built HTML of the two entries; asset URLs start with BASE_PLACEHOLDER. */
  loginHtml: string;
  appHtml: string;
  /** A file under assets/ by its name (hashed, e.g. `app-Bx1.js`). */
  asset(name: string): UiAsset | undefined;
}

/** What the UI build writes in front of every asset URL; replaced by the web base path when a page is served. */
export const BASE_PLACEHOLDER = '/__PANEL_BASE__/';

/** The app's pages (UI.md); none equals an API path (those live under panel/api, panel/setting, panel/core). */
export const UI_PAGES = ['', 'inbounds', 'clients', 'groups', 'nodes', 'core-config', 'settings', 'logs'] as const;

export const UI_CSP =
  "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  json: 'application/json',
};

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Only a page of the app may be the target after login (no open redirect). */
export function safeNext(raw: string | undefined): string | null {
  if (!raw || raw.length > 2000 || !raw.startsWith('panel/') || /[\\\s]|\/\//.test(raw)) return null;
  const page = raw.slice('panel/'.length).split(/[?#]/)[0]!;
  return (UI_PAGES as readonly string[]).includes(page) ? raw : null;
}

function page(c: AppContext, html: string, csrf: string): Response {
  const base = c.var.site.basePath;
  const meta = `<meta name="panel-base" content="${escapeAttr(base)}"><meta name="csrf-token" content="${escapeAttr(csrf)}">`;
  const body = html.replaceAll(BASE_PLACEHOLDER, base).replace('</head>', `${meta}</head>`);
  return c.html(body, 200, {
    'Content-Security-Policy': UI_CSP,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'same-origin',
  });
}

export function uiRoutes(ui: UiAssets) {
  const app = new Hono<AppEnv>();
  const base = (c: AppContext) => c.var.site.basePath;

  const login = async (c: AppContext) => {
    if (await sessionOf(c)) return c.redirect(`${base(c)}${safeNext(c.req.query('next')) ?? 'panel/'}`, 302);
    return page(c, ui.loginHtml, '');
  };
  app.get('/', login);

  app.get('/panel', (c) => c.redirect(`${base(c)}panel/`, 302));
  for (const name of UI_PAGES) {
    app.get(`/panel/${name}`, async (c) => {
      const claims = await sessionOf(c);
      if (!claims) {
        // Back to the login page, remembering where the user was (search and filters included).
        const url = new URL(c.req.url);
        const next = `panel/${name}${url.search}`;
        return c.redirect(`${base(c)}?next=${encodeURIComponent(next)}`, 302);
      }
      return page(c, ui.appHtml, await c.var.services.auth.csrfToken(claims));
    });
  }

  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    const file = ui.asset(name);
    if (!file) return c.body(null, 404);
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
    const accept = c.req.header('accept-encoding') ?? '';
    const headers: Record<string, string> = {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      Vary: 'Accept-Encoding',
    };
    let body = file.body;
    if (file.br && /\bbr\b/.test(accept)) {
      body = file.br;
      headers['Content-Encoding'] = 'br';
    } else if (file.gzip && /\bgzip\b/.test(accept)) {
      body = file.gzip;
      headers['Content-Encoding'] = 'gzip';
    }
    return c.body(body as Uint8Array<ArrayBuffer>, 200, headers);
  });

  return app;
}
