// Composition of the use cases over the ports (each gets its collaborators in its constructor). The node
// adapter (adapters/node/compose.ts), the Worker and the test app factory call createServices.
import type { Store } from './ports/store.js';
import type { CoreControl } from './ports/core.js';
import type { FileProbe, PanelControl, RuntimeInfo } from './ports/runtime.js';
import type { Clock } from './shared/clock.js';
import type { EventBus } from './shared/events.js';
import type { Settings } from './settings/schema.js';
import { SettingsService } from './settings/service.js';
import { AuthService } from './auth/service.js';
import { TokensService } from './tokens/service.js';
import { TrafficService } from './traffic/service.js';
import { SubscriptionService } from './subscription/service.js';
import type { AccessLogSource, IpLimitLog } from './ports/traffic-repo.js';
import type { PortProbe } from './ports/port-probe.js';
import { InboundsService } from './inbounds/service.js';
import { ClientsService } from './clients/service.js';
import { GroupsService } from './groups/service.js';
import { CoreService, type CoreServiceOptions } from './core/service.js';
import type { CoreMetricsProbe, HistoryFile, HostMetrics } from './ports/host.js';
import { StatusService } from './status/service.js';
import { noCoreMetrics, noHost } from './ports/host.js';
import { noPortProbe } from './ports/port-probe.js';
import { PushHub } from './push/hub.js';
import { noHttp, type HttpClient } from './ports/http.js';
import type { GeoFileStore } from './ports/geo-repo.js';
import { NodesService } from './nodes/service.js';
import { NodePusher, type PusherOptions } from './nodes/pusher.js';
import { NodePuller } from './nodes/puller.js';
import { NodeLocks } from './nodes/locks.js';
import { GeoService, type GeoServiceOptions } from './geo/service.js';
import { ServerToolsService, type ServerToolsPorts } from './server-tools/service.js';
import { TunnelProvider } from './providers/tunnel.js';
import { VpnProvider } from './providers/vpn.js';

export interface ServiceDeps {
  store: Store;
  core: CoreControl;
  clock: Clock;
  events: EventBus;
  files: FileProbe;
  panel: PanelControl;
  runtime: RuntimeInfo;
  /** Environment overrides of settings (RUNTIME.md). */
  settingsOverrides?: Partial<Settings>;
  /** The core's access log and the IP-limit log (host agent); optional: without them no client IPs are kept. */
  accessLog?: AccessLogSource;
  ipLimitLog?: IpLimitLog;
  /**
   * Bind test for "port must be free" (host agent; tests pass a fake). Without it only inbound-vs-inbound collisions
   * are checked.
   */
  portProbe?: PortProbe;
  /** Core API port (PANEL_CORE_API_PORT), access-log path and logging for the core service. */
  coreOptions?: CoreServiceOptions;
  /** Host metrics, the core's metrics endpoint and the history file (host agent); without them status reads zeros. */
  host?: HostMetrics;
  coreMetrics?: CoreMetricsProbe;
  historyFile?: HistoryFile | null;
  /** The guarded outbound fetch (nodes, geo downloads); without it outbound calls fail with a clear message. */
  http?: HttpClient;
  /** $PANEL_DATA_DIR/bin for custom geo files; without it custom geo downloads are refused. */
  geoFiles?: GeoFileStore | null;
  geoOptions?: GeoServiceOptions;
  /** Retry/backoff of the node pusher (the node adapter attaches it to the event bus). */
  pusherOptions?: PusherOptions;
  /** Server tools on the host: core install, geo files, logs, backups (host agent and node adapter). */
  serverTools?: ServerToolsPorts;
  /** The provider integrations' API base URLs (tests point them at local stand-ins), timeout and device name. */
  providers?: { tunnelApi?: string; vpnApi?: string; timeoutMs?: number; deviceName?: string; allowPrivate?: boolean };
}

/** The use cases the handlers, jobs and adapters call. No port is reachable through it. */
export interface Services {
  settings: SettingsService;
  auth: AuthService;
  tokens: TokensService;
  traffic: TrafficService;
  subscriptions: SubscriptionService;
  inbounds: InboundsService;
  clients: ClientsService;
  groups: GroupsService;
  core: CoreService;
  status: StatusService;
  push: PushHub;
  nodes: NodesService;
  nodePusher: NodePusher;
  nodePuller: NodePuller;
  geo: GeoService;
  serverTools: ServerToolsService;
  providerA: TunnelProvider;
  providerB: VpnProvider;
  /** Runs once at start-up, after migrations. */
  init(): Promise<void>;
}

export function createServices(deps: ServiceDeps): Services {
  const settings = new SettingsService(deps.store, deps.files, deps.events, deps.settingsOverrides);
  const auth = new AuthService(deps.store, settings, deps.clock);
  const tokens = new TokensService(deps.store, deps.clock, deps.events);
  // The traffic service and the core call each other: a tick that depletes clients may restart the core, and a
  // core restart first stores the counters the core holds. Each gets the other's call as a closure (so does the
  // node puller, which reports its onlines to the traffic service and counts through it).
  const traffic: TrafficService = new TrafficService({
    store: deps.store,
    core: deps.core,
    clock: deps.clock,
    events: deps.events,
    settings,
    accessLog: deps.accessLog,
    ipLimitLog: deps.ipLimitLog,
    restartCore: () => core.restart(),
    remoteOnlines: () => nodePuller.onlines(),
  });
  const core: CoreService = new CoreService(deps.store, deps.core, deps.events, {
    apiPort: deps.runtime.coreApiPort,
    ...deps.coreOptions,
    beforeRestart: () => traffic.flush(),
  });
  const subscriptions = new SubscriptionService(deps.store, settings, deps.clock, deps.events);
  const inbounds = new InboundsService(deps.store, deps.clock, deps.events, deps.portProbe ?? noPortProbe);
  const clients = new ClientsService(deps.store, deps.clock, deps.events, settings);
  const groups = new GroupsService(deps.store, deps.clock, deps.events);
  const status = new StatusService({
    host: deps.host ?? noHost,
    coreMetrics: deps.coreMetrics ?? noCoreMetrics,
    historyFile: deps.historyFile ?? null,
    core: deps.core,
    clock: deps.clock,
    events: deps.events,
    panelVersion: deps.runtime.panelVersion,
    onlineCount: async () => (await clients.onlines()).length,
    coreConfig: () => core.template(),
    warn: (msg, fields) => deps.coreOptions?.log?.(msg, fields),
  });
  const http: HttpClient = deps.http ?? noHttp;
  const nodes = new NodesService(deps.store, http, deps.clock, deps.events, (msg, fields) =>
    deps.coreOptions?.log?.(msg, fields),
  );
  // Node traffic comes back through the same accounting (quota, events); a reset here resets the node's counters.
  const nodePuller: NodePuller = new NodePuller(deps.store, http, deps.clock, new NodeLocks(), traffic, {
    log: deps.pusherOptions?.log,
  });
  const nodePusher = new NodePusher(deps.store, http, deps.pusherOptions, nodePuller);
  const geo = new GeoService(deps.store, http, deps.geoFiles ?? null, deps.clock, {
    ...deps.geoOptions,
    restartCore: async () => {
      if (core.status().state === 'running') await core.restart();
    },
  });
  const serverTools = new ServerToolsService({
    ...deps.serverTools,
    store: deps.store,
    clock: deps.clock,
    events: deps.events,
    settings,
    core,
    panel: deps.panel,
    panelVersion: deps.runtime.panelVersion,
    http: deps.http,
    afterImport: async () => {
      await auth.init();
      clients.reloadCatalog();
      inbounds.dropCachedText();
    },
  });
  const p = deps.providers ?? {};
  const providerA = new TunnelProvider({
    http,
    settings,
    core,
    clock: deps.clock,
    baseUrl: p.tunnelApi,
    timeoutMs: p.timeoutMs,
    deviceName: p.deviceName,
    allowPrivate: p.allowPrivate,
  });
  const providerB = new VpnProvider({
    http,
    settings,
    core,
    clock: deps.clock,
    baseUrl: p.vpnApi,
    timeoutMs: p.timeoutMs,
    allowPrivate: p.allowPrivate,
  });
  const push = new PushHub();
  push.attach(deps.events);
  return {
    settings,
    auth,
    tokens,
    traffic,
    subscriptions,
    inbounds,
    clients,
    groups,
    core,
    status,
    push,
    nodes,
    nodePusher,
    nodePuller,
    geo,
    serverTools,
    providerA,
    providerB,
    async init(): Promise<void> {
      await auth.init();
      void clients.warmCatalog(); // the paged list's first request then finds its catalog read
    },
  };
}
