// The routes a Hono app has registered (middleware left out), for tests that walk every route.
import type { Hono } from 'hono';

export interface RegisteredRoute {
  method: string;
  /** Hono's pattern, e.g. `/panel/api/clients/get/:email`. */
  path: string;
}

export function registeredRoutes(app: Hono<any>): RegisteredRoute[] {
  const seen = new Set<string>();
  const out: RegisteredRoute[] = [];
  for (const r of app.routes) {
    if (r.method === 'ALL') continue; // middleware (use())
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: r.method, path: r.path });
  }
  return out;
}

/** `/x/:id/:file{a|b}` → `/x/{id}/{file}`; the optional trailing slash `/:name{/?}` is the route without it. */
export function openApiPath(path: string): string {
  const p = path.replace(/\/:[A-Za-z0-9_]+\{\/\?\}$/, '').replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
  return p === '' ? '/' : p;
}

const SAMPLES: Record<string, string> = {
  id: '1',
  email: 'walk@example.com',
  file: 'swagger-ui.css',
  count: '10',
  bucket: '2',
  metric: 'cpu',
  trailingSlash: '',
};

/** A concrete URL path for a pattern, with a plausible value for each parameter. */
export function samplePath(path: string): string {
  return path
    .replace(/\/:([A-Za-z0-9_]+)\{\/\?\}$/, '/')
    .replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, (_m, name: string) => SAMPLES[name] ?? 'x');
}
