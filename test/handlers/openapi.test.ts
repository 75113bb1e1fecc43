// GET /panel/api/openapi.json and /panel/api/docs: the document validates against OpenAPI 3.1, names every
// registered route and no other, and its request examples are real requests the panel accepts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { openApiPath, registeredRoutes } from '../support/routes.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const DOC = '/panel/api/openapi.json';
/** The reference's own routes are not part of the API it documents. */
const NOT_DOCUMENTED = [/^\/panel\/api\/openapi\.json$/, /^\/panel\/api\/docs/];
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

type Operation = {
  parameters?: { name: string; in: string; schema?: { example?: unknown } }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
};

describe.each(testDatabases())('OpenAPI document on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let bearer: string;
  let doc: any;

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    bearer = (await t.services.tokens.create('openapi')).token;
    const r = await call(t, 'GET', DOC, undefined, { bearer });
    expect(r.status).toBe(200);
    doc = r.json;
  });
  afterAll(async () => {
    await t.close();
  });

  it('is served behind the panel authentication (404 without credentials, 200 with a session)', async () => {
    const anon = await call(t, 'GET', DOC);
    expect(anon.status).toBe(404);
    expect(anon.text).toBe('');
    expect((await call(t, 'GET', DOC, undefined, s)).json.openapi).toBe('3.1.0');
  });

  it('validates against the OpenAPI 3.1 schema', async () => {
    const res = await new Validator().validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('names every registered route of the panel app, and no route that does not exist', () => {
    const registered = new Set(
      registeredRoutes(t.app)
        .map((r) => `${r.method} ${openApiPath(r.path)}`)
        .filter((k) => !NOT_DOCUMENTED.some((re) => re.test(k.split(' ')[1]!))),
    );
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const m of METHODS) if (item[m]) documented.add(`${m.toUpperCase()} ${path}`);
    }
    expect(
      [...registered].filter((k) => !documented.has(k)),
      'registered but not documented',
    ).toEqual([]);
    expect(
      [...documented].filter((k) => !registered.has(k)),
      'documented but not registered',
    ).toEqual([]);
    expect(documented.size).toBeGreaterThan(80);
  });

  it('describes each answer as the envelope with its obj shape', () => {
    const add = doc.paths['/panel/api/clients/add'].post;
    const schema = add.responses['200'].content['application/json'].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(['msg', 'obj', 'success']);
    const body = add.requestBody.content;
    expect(Object.keys(body).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    expect(JSON.stringify(body['application/json'].schema)).toContain('inboundIds');
    expect(add.responses['404']).toBeDefined();
    expect(doc.paths['/login'].post.security).toEqual([]);
  });

  it('has request examples that are real requests the panel accepts', async () => {
    const examples: { method: string; path: string; body: unknown }[] = [];
    for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const m of METHODS) {
        const op = item[m];
        const body = op?.requestBody?.content['application/json']?.example;
        if (body === undefined) continue;
        const url = path.replace(/\{([^}]+)\}/g, (_x, name: string) => {
          const p = op!.parameters?.find((q) => q.name === name && q.in === 'path');
          return encodeURIComponent(String(p?.schema?.example ?? ''));
        });
        examples.push({ method: m.toUpperCase(), path: url, body });
      }
    }
    expect(examples.length).toBeGreaterThanOrEqual(8);
    // An inbound first (the client examples attach to inbound 1), then clients before the routes that use them.
    const rank = (p: string) => (p.includes('/inbounds/add') ? 0 : p.endsWith('/clients/add') ? 1 : 2);
    examples.sort((a, b) => rank(a.path) - rank(b.path));
    for (const ex of examples) {
      const r = await call(t, ex.method, ex.path, ex.body, { bearer });
      expect(r.json, `${ex.method} ${ex.path}`).toMatchObject({ success: true });
    }
  });

  it('serves the reference page and its renderer from the panel itself, under a strict CSP', async () => {
    const page = await call(t, 'GET', '/panel/api/docs', undefined, s);
    expect(page.status).toBe(200);
    expect(page.text).toContain('docs/swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) {
      const r = await t.app.request(`/panel/api/docs/${file}`, { headers: { cookie: s.cookie } });
      expect(r.status, file).toBe(200);
      expect((await r.arrayBuffer()).byteLength, file).toBeGreaterThan(100);
    }
    expect((await call(t, 'GET', '/panel/api/docs')).status).toBe(404);
  });
});
