// The panel process: store, services, background work and the two listeners, with in-process restart and
// graceful stop.
//
// Lifecycle:  start()  = composeNode (store, migrations, services) → admin → startWork() → listen() → sampler
//             restart  = stopWork() → close listeners (WebSockets 1001) → startWork() → listen() (new ports / base path
// / TLS)
//             stop()   = stop sampler → close WebSockets (1001) and listeners (in-flight requests finish, 2 s grace)
//                        → stopWork() → close store
// What runs is built by compose.ts; background jobs start and stop in startWork()/stopWork().
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, upgradeWebSocket, type ServerType } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Services } from '../../domain/services.js';
import { EventBus } from '../../domain/shared/events.js';
import type { Store } from '../../domain/ports/store.js';
import type { Settings } from '../../domain/settings/schema.js';
import { createPanelApp } from '../../handlers/app.js';
import { createSubscriptionApp } from '../../handlers/subscription-app.js';
import type { Logger } from '../../handlers/context.js';
import { swaggerUiAssets } from '../../host-agent/docs-assets.js';
import { CoreSupervisor } from '../../host-agent/core/supervisor.js';
import type { NodeConfig } from './config.js';
import { composeNode, type BackgroundJobs } from './compose.js';
import { loadUiAssets } from './ui-assets.js';

/** How long in-flight requests may take to finish when listeners close, before connections are cut. */
const CLOSE_GRACE_MS = 2000;

export const peerAddress = (c: Context): string => {
  try {
    return getConnInfo(c).remote.address ?? '';
  } catch {
    return '';
  }
};

function closeServer(server: ServerType | null, graceMs: number): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise((resolve) => {
    const s = server as unknown as HttpServer;
    const timer = setTimeout(() => s.closeAllConnections?.(), graceMs);
    s.close(() => {
      clearTimeout(timer);
      resolve();
    });
    s.closeIdleConnections?.();
  });
}

const hostForUrl = (h: string) => (h.includes(':') ? `[${h}]` : h);

interface Tls {
  key: Buffer;
  cert: Buffer;
}

function readTls(certFile: string, keyFile: string): Tls | null {
  if (!certFile || !keyFile) return null;
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

/** What the listeners were started with (compared on restart, reused when new settings fail to bind). */
interface ListenPlan {
  panelHost: string;
  panelPort: number;
  basePath: string;
  panelTls: Tls | null;
  subEnable: boolean;
  subHost: string;
  subPort: number;
  subTls: Tls | null;
}

export class PanelServer {
  store!: Store;
  services!: Services;
  readonly events = new EventBus();
  private panelServer: ServerType | null = null;
  private subServer: ServerType | null = null;
  private restarting: Promise<void> | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private lastGood: ListenPlan | null = null;
  private supervisor: CoreSupervisor | null = null;
  /** Traffic poll and enforcement, node heartbeat and pusher (adapters/node/compose.ts). */
  private jobs: BackgroundJobs | null = null;
  /** The panel listener's WebSocket server (noServer: upgrades arrive through the Hono app). */
  private wss: WebSocketServer | null = null;
  /** Actual bound addresses (port 0 resolves to a real port), for tests and the start-up lines. */
  panelUrl = '';
  subUrl = '';

  constructor(
    private config: NodeConfig,
    private logger: Logger,
    private print: (line: string) => void = console.log,
  ) {}

  async start(): Promise<void> {
    const built = await composeNode(this.config, {
      events: this.events,
      logger: this.logger,
      requestRestart: (ms) => this.scheduleRestart(ms),
    });
    this.store = built.store;
    this.services = built.services;
    this.supervisor = built.supervisor;
    this.jobs = built.jobs();
    await this.services.init();
    const admin = await this.services.auth.ensureAdmin(this.config.adminUsername, this.config.adminPassword);
    if (admin.created && admin.generatedPassword) {
      this.print(
        `admin credential created: username ${admin.username} password ${admin.generatedPassword} (shown once; change it in Settings)`,
      );
    } else if (admin.created) {
      this.logger.info('admin credential created from PANEL_ADMIN_USERNAME/PANEL_ADMIN_PASSWORD', {
        username: admin.username,
      });
    }
    for (const [key, env] of Object.entries(this.config.overrideSources)) {
      this.logger.info('setting overridden by the environment', { key, env });
    }
    await this.startWork();
    await this.listen(await this.plan());
    // The status sampler (every 2 s) and the push hub's keepalive run after the listeners are up.
    this.services.status.start();
    this.services.push.start();
    // The core starts after the listeners; a config it refuses leaves it in the error state (see getCoreResult).
    await this.services.core.start();
  }

  /** Starts background work (jobs). Runs at start and after a panel restart. */
  private async startWork(): Promise<void> {
    await this.jobs?.start();
  }

  /** Stops background work (flushes counters…). Runs before a panel restart and at stop. */
  private async stopWork(): Promise<void> {
    await this.jobs?.stop();
  }

  private async plan(): Promise<ListenPlan> {
    this.services.settings.invalidate();
    const s: Settings = await this.services.settings.effective();
    return {
      panelHost: s.webListen || '0.0.0.0',
      panelPort: s.webPort,
      basePath: s.webBasePath,
      panelTls: readTls(s.webCertFile, s.webKeyFile),
      subEnable: s.subEnable,
      subHost: s.subListen || s.webListen || '0.0.0.0',
      subPort: s.subPort,
      subTls: readTls(s.subCertFile, s.subKeyFile),
    };
  }

  private async listen(p: ListenPlan): Promise<void> {
    const panelApp = createPanelApp({
      services: this.services,
      clientIp: peerAddress,
      basePath: p.basePath,
      secure: !!p.panelTls,
      logger: this.logger,
      upgradeWebSocket,
      ui: loadUiAssets(),
      docsAssets: swaggerUiAssets(),
    });
    // Clients send nothing but control frames: a small payload cap.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
    try {
      this.panelServer = await listenOn(panelApp.fetch, p.panelHost, p.panelPort, p.panelTls, this.wss);
    } catch (err) {
      this.wss.close(); // the port could not be bound (taken, no permission): no listener, no ws server
      this.wss = null;
      throw err;
    }
    try {
      const panelPort = (this.panelServer.address() as AddressInfo).port;
      this.panelUrl = `${p.panelTls ? 'https' : 'http'}://${hostForUrl(p.panelHost)}:${panelPort}${p.basePath}`;
      if (p.subEnable) {
        const subApp = createSubscriptionApp({ services: this.services, clientIp: peerAddress });
        this.subServer = await listenOn(subApp.fetch, p.subHost, p.subPort, p.subTls);
        const subPort = (this.subServer.address() as AddressInfo).port;
        this.subUrl = `${p.subTls ? 'https' : 'http'}://${hostForUrl(p.subHost)}:${subPort}/`;
      } else {
        this.subUrl = '';
      }
    } catch (err) {
      await closeServer(this.panelServer, 0);
      this.panelServer = null;
      this.wss?.close();
      this.wss = null;
      throw err;
    }
    this.lastGood = p;
    this.print(`panel listening on ${this.panelUrl}`);
    if (this.subUrl) this.print(`subscription listening on ${this.subUrl}`);
  }

  private scheduleRestart(delayMs: number): void {
    if (this.restarting) return;
    this.events.emit('notification', {
      title: 'Panel restart',
      body: `restarting in ${delayMs / 1000} s`,
      severity: 'info',
    });
    let done!: () => void;
    this.restarting = new Promise((r) => (done = r));
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.restart()
        .catch((err) =>
          this.logger.error('panel restart failed', { error: err instanceof Error ? err.message : String(err) }),
        )
        .finally(() => {
          this.restarting = null;
          done();
        });
    }, delayMs);
    this.restartTimer.unref();
  }

  /**
   * Restarts listeners and background work without leaving the process, picking up changed ports, base path
   * and certificates. When the new settings cannot be served (port taken, unreadable certificate), the
   * listeners come back on the previous ones and the reason is logged.
   */
  async restart(): Promise<void> {
    this.logger.info('restarting the panel in-process');
    await this.stopWork();
    await this.closeListeners('panel restarting');
    await this.startWork();
    try {
      await this.listen(await this.plan());
    } catch (err) {
      if (!this.lastGood) throw err;
      this.logger.error('the new listener settings failed; keeping the previous ones', {
        error: err instanceof Error ? err.message : String(err),
      });
      this.events.emit('notification', {
        title: 'Panel restart',
        body: `new listener settings failed: ${String(err)}`,
        severity: 'error',
      });
      await this.listen(this.lastGood);
    }
  }

  /** Graceful stop: stop accepting, let in-flight requests finish (2 s grace), stop work, close the database. */
  async stop(): Promise<void> {
    if (this.restartTimer) {
      clearTimeout(this.restartTimer); // a restart that has not begun is dropped: we are stopping anyway
      this.restartTimer = null;
      this.restarting = null;
    }
    if (this.restarting) await this.restarting;
    await this.services?.status.stop(); // the sampler first (it saves the history rings)
    this.services?.push.close('panel stopping');
    await this.closeListeners('panel stopping');
    await this.stopWork();
    // After the traffic flush (in stopWork): stop the core, never leaving it behind.
    this.services?.core.dispose();
    await this.supervisor?.shutdown().catch((err) => this.logger.error('core stop failed', { error: String(err) }));
    await this.store?.close();
  }

  /**
   * Stops accepting, closes every WebSocket with 1001 and the ws server (open WebSockets would hold
   * server.close() for the whole grace period), then waits for in-flight requests (2 s grace).
   */
  private async closeListeners(reason: string): Promise<void> {
    const closing = Promise.all([
      closeServer(this.panelServer, CLOSE_GRACE_MS),
      closeServer(this.subServer, CLOSE_GRACE_MS),
    ]);
    this.services?.push.disconnectAll(reason);
    this.wss?.close();
    this.wss = null;
    await closing;
    this.panelServer = this.subServer = null;
  }
}

function listenOn(
  fetch: (req: Request, ...rest: any[]) => Response | Promise<Response>,
  hostname: string,
  port: number,
  tls: Tls | null,
  wss?: WebSocketServer,
): Promise<ServerType> {
  const websocket = wss ? { server: wss } : undefined;
  return new Promise((resolve, reject) => {
    const server = tls
      ? serve(
          {
            fetch,
            hostname,
            port,
            websocket,
            createServer: createHttpsServer,
            serverOptions: { key: tls.key, cert: tls.cert },
          },
          () => resolve(server),
        )
      : serve({ fetch, hostname, port, websocket }, () => resolve(server));
    server.once('error', reject);
  });
}
