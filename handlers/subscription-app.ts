// createSubscriptionApp(deps): the separate subscription server. GET/HEAD /{subPath}:subid (base64 feed, or the
// HTML page for Accept: text/html or ?html=1), /{subJsonPath}:subid when subJsonEnable, /{subClashPath}:subid
// when subClashEnable. Paths and switches come from the effective settings on every request (the settings
// service caches them for 2 s). Every other path, method, unknown id or disabled format answers 404 with an
// empty body: the server is exposed to the internet and must not reveal what it is.
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Services } from '../domain/services.js';
import type { SubFormat } from '../domain/subscription/service.js';
import type { Settings } from '../domain/settings/schema.js';
import { requestView } from './forwarded.js';

export interface SubscriptionDeps {
  /** Only these two: the Workers entry builds just them (adapters/worker). */
  services: Pick<Services, 'settings' | 'subscriptions'>;
  clientIp(c: Context): string;
  /**
   * The answer when serving throws (a database failure). Default 404 like every other miss; the Workers entry
   * answers 503 there, since its usual cause is a wrong database setting.
   */
  onError?(err: unknown, c: Context): Response;
}

/** The format and subscription id a path names, or null. */
export function matchSubPath(path: string, s: Settings): { format: Exclude<SubFormat, 'html'>; subId: string } | null {
  const routes: [string, Exclude<SubFormat, 'html'>, boolean][] = [
    [s.subPath, 'sub', true],
    [s.subJsonPath, 'json', s.subJsonEnable],
    [s.subClashPath, 'clash', s.subClashEnable],
  ];
  for (const [prefix, format, enabled] of routes) {
    if (!enabled || !path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    if (!rest || rest.includes('/')) continue;
    try {
      const subId = decodeURIComponent(rest);
      if (subId) return { format, subId };
    } catch {
      /* malformed escape: no match */
    }
  }
  return null;
}

const wantsHtml = (c: Context) =>
  c.req.query('html') === '1' || (c.req.header('accept') ?? '').toLowerCase().includes('text/html');

export function createSubscriptionApp(deps: SubscriptionDeps): Hono {
  const app = new Hono();
  const notFound = (c: Context) => c.body(null, 404);
  app.on(['GET', 'HEAD'], '*', async (c) => {
    const s = await deps.services.settings.effective();
    if (!s.subEnable) return notFound(c);
    // The raw path (Hono's c.req.path is already partly decoded): the subscription id is decoded exactly once.
    const raw = c.req.url.replace(/^[a-z]+:\/\/[^/]*/i, '').replace(/[?#].*$/, '');
    const m = matchSubPath(raw, s);
    if (!m) return notFound(c);
    const format: SubFormat = m.format === 'sub' && wantsHtml(c) ? 'html' : m.format;
    const view = requestView(c, deps.clientIp(c), s.trustedProxyCIDRs);
    const res = await deps.services.subscriptions.render(format, m.subId, view, s);
    if (!res) return notFound(c);
    const headers = new Headers(res.headers);
    headers.set('Content-Type', res.contentType);
    if (m.format === 'sub') headers.set('Vary', 'Accept');
    return new Response(c.req.method === 'HEAD' ? null : res.body, { status: 200, headers });
  });
  app.notFound(notFound);
  app.onError((err, c) => (deps.onError ? deps.onError(err, c) : notFound(c)));
  return app;
}
