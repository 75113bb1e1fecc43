// GET {base}ws: the push channel. Upgrades only with a valid session cookie (a Bearer token alone is refused,
// spec Authentication 5) from a page of the panel itself (Origin equal to Host). The adapter injects
// `upgradeWebSocket`; the connection is handed to the transport-free hub (domain/push/hub.ts).
import type { Context, Next } from 'hono';
import { createRoute, routes } from './route.js';
import type { AppEnv } from './context.js';
import { bearerToken, sessionOf, unauthenticated } from './auth.js';
import { checkUpgrade } from '../domain/push/upgrade.js';
import type { PushConnection } from '../domain/push/hub.js';

/** What we use of the underlying socket (the `ws` library's WebSocket on Node), typed structurally. */
interface RawSocket {
  bufferedAmount?: number;
  ping?(): void;
  terminate?(): void;
  close(code?: number, reason?: string): void;
  on?(event: 'pong', fn: () => void): void;
}

export async function websocketRoute(c: Context<AppEnv>, next: Next): Promise<Response | void> {
  const claims = await sessionOf(c);
  const decision = checkUpgrade({
    session: !!claims,
    bearer: bearerToken(c) !== undefined,
    origin: c.req.header('origin'),
    host: c.req.header('host'),
    secure: c.var.site.secure,
  });
  if (!decision.ok) {
    c.var.site.logger?.debug('websocket refused', { reason: decision.reason });
    if (decision.kind === 'unauthenticated') return unauthenticated(c);
    return c.json({ success: false, msg: `WebSocket refused: ${decision.reason}`, obj: null }, 403);
  }
  const upgrade = c.var.site.upgradeWebSocket;
  if (!upgrade || c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    return c.json({ success: false, msg: 'expected a WebSocket upgrade request', obj: null }, 426);
  }
  const hub = c.var.services.push;
  let conn: PushConnection | null = null;
  return upgrade(() => ({
    onOpen(_evt, ws) {
      const raw = ws.raw as RawSocket | undefined;
      conn = hub.connect({
        send: (text) => ws.send(text),
        bufferedAmount: () => raw?.bufferedAmount ?? 0,
        ping: () => raw?.ping?.(),
        close: (code, reason) => ws.close(code, reason),
        terminate: () => (raw?.terminate ? raw.terminate() : ws.close(1011, 'dropped')),
      });
      raw?.on?.('pong', () => conn?.alive());
    },
    // Clients send nothing we act on; any frame proves the peer is alive.
    onMessage() {
      conn?.alive();
    },
    onClose() {
      conn?.closed();
      conn = null;
    },
    onError() {
      conn?.closed();
      conn = null;
    },
  }))(c, next);
}

/** GET /ws, declared for the document (101 Switching Protocols, or a refusal). */
export function websocketRoutes() {
  const app = routes({ publicRoutes: true });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/ws',
      tags: ['push'],
      security: [{ session: [] }],
      summary: 'The push channel (WebSocket): status every 2 s, invalidations, notifications',
      description:
        'A session cookie only (Bearer refused). A browser page must come from the panel (Origin equal to ' +
        'Host); a client that sends no Origin (a script) is accepted.',
      responses: {
        101: { description: 'Switching Protocols' },
        403: { description: 'Origin is not this panel' },
        404: { description: 'No valid session (401 with the envelope for XMLHttpRequest)' },
        426: { description: 'Not a WebSocket upgrade request' },
      },
    }),
    websocketRoute as never,
  );
  return app;
}
