// The node adapter's composition: configuration → store, core supervisor, services, and the background jobs.
// PanelServer (server.ts) owns the listeners and the lifecycle; everything it runs is built here.
import { join } from 'node:path';
import { openStore } from '../../storage/store.js';
import { createServices, type Services } from '../../domain/services.js';
import type { EventBus } from '../../domain/shared/events.js';
import { systemClock } from '../../domain/shared/clock.js';
import type { Store } from '../../domain/ports/store.js';
import type { CoreControl } from '../../domain/ports/core.js';
import { HEARTBEAT_INTERVAL_MS } from '../../domain/nodes/service.js';
import type { Logger } from '../../handlers/context.js';
import { fileProbe } from '../../host-agent/files.js';
import { hostPortProbe } from '../../host-agent/port-probe.js';
import { UnavailableCore } from '../../host-agent/core/unavailable-core.js';
import { CoreSupervisor } from '../../host-agent/core/supervisor.js';
import { defaultCoreBin } from '../../host-agent/core/binary.js';
import { createProcHost } from '../../host-agent/metrics/host.js';
import { createCoreVarsProbe } from '../../host-agent/metrics/core-vars.js';
import { createHistoryFile } from '../../host-agent/metrics/history-file.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { createGeoFileStore } from '../../host-agent/geo-files.js';
import { AccessLogTail, FileIpLimitLog, IP_LIMIT_LOG_FILE } from '../../host-agent/access-log.js';
import type { NodeConfig } from './config.js';
import { AccessLogSwitch, JobRunner, TrafficJobs, trafficIntervalMs } from './jobs.js';
import { nodeServerTools } from './server-tools.js';
import { providerOptions } from './providers.js';
import { secureFiles } from './secure-files.js';
import { PULL_INTERVAL_MS, RECONCILE_INTERVAL_MS } from '../../domain/nodes/puller.js';

export interface NodeComposition {
  store: Store;
  services: Services;
  /** The core process supervisor; null when no core binary is available (the panel runs without it). */
  supervisor: CoreSupervisor | null;
  /** Builds the background jobs (traffic poll and enforcement, node heartbeat and pusher); started and stopped
   * around each panel restart. */
  jobs(): BackgroundJobs;
}

export interface BackgroundJobs {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ComposeHooks {
  events: EventBus;
  logger: Logger;
  /** The panel restarts its listeners after `delayMs` (POST /restartPanel, database import). */
  requestRestart(delayMs: number): void;
}

export async function composeNode(config: NodeConfig, hooks: ComposeHooks): Promise<NodeComposition> {
  const { events, logger } = hooks;
  secureFiles(config, logger);
  const store = await openStore(config.dbUrl);
  // The core: PANEL_CORE_BIN, else $PANEL_DATA_DIR/bin/xray, else xray on PATH. A missing binary is a state.
  const coreBin = config.coreBin ?? defaultCoreBin(config.dataDir);
  const late: { services?: Services } = {}; // the supervisor reports states to the core service built after it
  const supervisor = new CoreSupervisor({
    bin: coreBin,
    dataDir: config.dataDir,
    logger,
    onState: (status) => late.services?.core.reportState(status),
  });
  await supervisor.init();
  const accessLog = new AccessLogSwitch(config.dataDir);
  let core: CoreControl = supervisor;
  const running = supervisor.available ? supervisor : null;
  if (!running) {
    logger.warn('the core is not available; the panel runs without it', { reason: supervisor.status().error });
    core = new UnavailableCore(supervisor.status().error);
  }
  const services = createServices({
    store,
    core,
    coreOptions: { log: (msg, fields) => logger.warn(msg, fields), accessLog: () => accessLog.path() },
    accessLog: new AccessLogTail(() => accessLog.path()),
    ipLimitLog: new FileIpLimitLog(join(config.dataDir, IP_LIMIT_LOG_FILE)),
    clock: systemClock,
    events,
    files: fileProbe,
    panel: { requestRestart: (ms) => hooks.requestRestart(ms) },
    runtime: { panelVersion: config.panelVersion, dataDir: config.dataDir, coreApiPort: config.coreApiPort },
    settingsOverrides: config.overrides,
    portProbe: hostPortProbe,
    host: createProcHost({ diskPath: config.dataDir }),
    coreMetrics: createCoreVarsProbe(),
    historyFile: createHistoryFile(config.dataDir),
    http: createGuardedFetch(),
    geoFiles: createGeoFileStore(join(config.dataDir, 'bin')),
    pusherOptions: { log: (msg, fields) => logger.warn(msg, fields) },
    providers: providerOptions(),
    serverTools: nodeServerTools({
      dataDir: config.dataDir,
      coreBin: config.coreBin,
      supervisor: () => running,
      supervisorBin: coreBin,
      dbFile: config.dbUrl.startsWith('file:') ? config.dbUrl.slice(5) : null,
    }),
  });
  late.services = services;
  const s = services;
  return {
    store,
    services: s,
    supervisor: running,
    jobs() {
      let traffic: TrafficJobs | null = null;
      let nodes: JobRunner | null = null;
      return {
        async start() {
          traffic = new TrafficJobs(s, events, accessLog, logger, trafficIntervalMs());
          await traffic.start();
          s.nodePusher.attach(events);
          nodes = new JobRunner(logger);
          nodes.every('node-heartbeat', HEARTBEAT_INTERVAL_MS, () => s.nodes.heartbeat());
          nodes.every('node-pull', PULL_INTERVAL_MS, () => s.nodePuller.pull());
          nodes.every('node-reconcile', RECONCILE_INTERVAL_MS, () => s.nodePusher.reconcile());
        },
        // The traffic job stops first and flushes the last counters (the core is stopped after the jobs).
        async stop() {
          await traffic?.stop();
          traffic = null;
          await nodes?.stop();
          nodes = null;
          await s.nodePusher.stop();
        },
      };
    },
  };
}
