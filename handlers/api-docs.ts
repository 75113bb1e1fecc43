// GET /panel/api/openapi.json (the OpenAPI 3.1 document built from the route declarations) and /panel/api/docs
// (Swagger UI over it, its files served by the panel itself: no CDN, a strict CSP). Both behind /panel/* auth.
import { Hono } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, DocsAssets } from './context.js';
import { SESSION_COOKIE } from './auth.js';

export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** The document of `routes` for a panel at `basePath`, built on first use. */
export function openApiDocument(routes: OpenAPIHono<AppEnv>, basePath: string): OpenApiDocument {
  routes.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (Settings → API tokens, or `panel token create`)',
  });
  routes.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The session cookie from POST /login; unsafe methods also need `X-CSRF-Token` from GET /csrf-token',
  });
  return routes.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Proxy panel management API',
      version: '1',
      description:
        'Every answer is the envelope `{success, msg, obj}`. Business and validation failures are HTTP 200 ' +
        'with `success: false` and `msg` naming the field. Request bodies are JSON or forms (urlencoded or ' +
        'multipart); in forms, numbers and booleans are strings and object fields may be JSON text.',
    },
    // Paths begin with `/`: the server URL is the base path without its trailing slash (`/` at the root).
    servers: [{ url: basePath.replace(/\/+$/, '') || '/', description: 'this panel (the web base path)' }],
    security: [{ bearer: [] }, { session: [] }],
  });
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Panel API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="api"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

// "Try it out" runs as the logged-in session: unsafe methods carry the session's CSRF token.
const INIT = `(function () {
  var base = location.pathname.replace(/panel\\/api\\/docs\\/?$/, '');
  var csrf = null;
  function token() {
    if (csrf) return Promise.resolve(csrf);
    return fetch(base + 'csrf-token', { credentials: 'same-origin' }).then(function (r) { return r.json(); })
      .then(function (b) { csrf = b.obj; return csrf; });
  }
  window.SwaggerUIBundle({
    url: base + 'panel/api/openapi.json',
    dom_id: '#api',
    validatorUrl: null,
    deepLinking: true,
    requestInterceptor: function (req) {
      if (/^(GET|HEAD|OPTIONS)$/i.test(req.method || 'GET')) return req;
      return token().then(function (t) { req.headers['X-CSRF-Token'] = t; return req; });
    }
  });
})();
`;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const ASSET_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

export function apiDocsRoutes(document: () => OpenApiDocument, assets?: DocsAssets): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/openapi.json', (c) => c.json(document()));
  app.get('/docs', (c) => {
    c.header('content-security-policy', CSP);
    return c.html(PAGE);
  });
  app.get('/docs/init.js', (c) => c.body(INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/docs/:file{swagger-ui\\.css|swagger-ui-bundle\\.js}', async (c) => {
    const file = c.req.param('file');
    const data = assets ? await assets.read(file) : null;
    if (!data) return c.body(null, 404);
    return c.body(data as Uint8Array<ArrayBuffer>, 200, {
      'content-type': ASSET_TYPES[file]!,
      'cache-control': 'private, max-age=86400',
    });
  });
  return app;
}
