// What every handler finds on the Hono context.
import type { Context } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import type { Services } from '../domain/services.js';
import type { SessionClaims } from '../domain/auth/session.js';
import type { UiAssets } from './ui.js';
import type { DocsAssets } from '../domain/ports/docs-assets.js';

export type { DocsAssets };

export type Principal = { kind: 'session'; claims: SessionClaims } | { kind: 'bearer' };

export interface PanelDeps {
  services: Services;
  /** The peer address of the request (the adapter knows the socket). */
  clientIp(c: Context): string;
  /** Web base path, normalised to begin and end with `/`. */
  basePath: string;
  /** Whether the panel is served over TLS (Secure cookies). */
  secure: boolean;
  logger?: Logger;
  /** The runtime's WebSocket upgrade (Node: `upgradeWebSocket` from @hono/node-server); absent: GET /ws answers 426. */
  upgradeWebSocket?: UpgradeWebSocket<any>;
  /** The built browser UI (Node: read from dist/ui); absent: the page URLs answer 404. */
  ui?: UiAssets;
  /** The API reference page's renderer files (Swagger UI); absent: /panel/api/docs loads without them. */
  docsAssets?: DocsAssets;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** What a handler may know about where it is served, besides the use cases (no ports, no other dependencies). */
export type Site = Pick<PanelDeps, 'basePath' | 'secure' | 'logger' | 'clientIp' | 'upgradeWebSocket'>;

export type AppEnv = {
  Variables: {
    site: Site;
    services: Services;
    principal: Principal;
    requestId: string;
  };
};

export type AppContext = Context<AppEnv>;
