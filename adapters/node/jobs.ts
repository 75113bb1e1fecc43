// Background jobs of the node adapter: a small runner (fixed-delay, never overlapping, stops cleanly) and the
// traffic job wiring (poll interval from PANEL_TRAFFIC_INTERVAL_MS, the access log switched on with the
// ipLimitEnable setting, a flush before the core stops).
import { join } from 'node:path';
import type { Logger } from '../../handlers/context.js';
import type { Services } from '../../domain/services.js';
import type { EventBus } from '../../domain/shared/events.js';
import { ACCESS_LOG_FILE } from '../../host-agent/access-log.js';

export const DEFAULT_TRAFFIC_INTERVAL_MS = 5000;

/** PANEL_TRAFFIC_INTERVAL_MS: the traffic poll interval, 200 ms to 1 hour; default 5000. */
export function trafficIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PANEL_TRAFFIC_INTERVAL_MS;
  if (raw === undefined || raw === '') return DEFAULT_TRAFFIC_INTERVAL_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 200 || n > 3_600_000) {
    throw new Error(`PANEL_TRAFFIC_INTERVAL_MS must be an integer from 200 to 3600000 (milliseconds), got "${raw}"`);
  }
  return n;
}

interface Job {
  name: string;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
}

/** Runs each job every `ms` after the previous run finished; a failing run is logged and the job goes on. */
export class JobRunner {
  private jobs: Job[] = [];
  private stopped = false;

  constructor(private logger: Logger) {}

  every(name: string, ms: number, fn: () => Promise<unknown>): void {
    const job: Job = { name, timer: null, running: null };
    const schedule = () => {
      if (this.stopped) return;
      job.timer = setTimeout(() => {
        job.timer = null;
        job.running = fn()
          .then(
            () => undefined,
            (err) =>
              this.logger.error(`job ${name} failed`, { error: err instanceof Error ? err.message : String(err) }),
          )
          .finally(() => {
            job.running = null;
            schedule();
          });
      }, ms);
    };
    this.jobs.push(job);
    schedule();
  }

  /** Stops scheduling and waits for runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs) if (job.timer) clearTimeout(job.timer);
    await Promise.all(this.jobs.map((j) => j.running));
    this.jobs = [];
  }
}

/**
 * Whether the core writes an access log (only while ipLimitEnable is on) and where: `$PANEL_DATA_DIR/access.log`.
 * The core service reads `path()` whenever it builds the config; a change of the setting restarts the core once.
 */
export class AccessLogSwitch {
  private on = false;
  readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, ACCESS_LOG_FILE);
  }

  path(): string | undefined {
    return this.on ? this.file : undefined;
  }

  /** Reads the setting; true when it changed. */
  async refresh(services: Services): Promise<boolean> {
    const on = (await services.settings.effective()).ipLimitEnable;
    const changed = on !== this.on;
    this.on = on;
    return changed;
  }
}

/** The traffic job: tick every interval; on stop, wait for the running tick and flush the last counters. */
export class TrafficJobs {
  private runner: JobRunner | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private services: Services,
    private events: EventBus,
    private accessLog: AccessLogSwitch,
    private logger: Logger,
    private intervalMs: number,
  ) {}

  async start(): Promise<void> {
    await this.accessLog.refresh(this.services);
    this.unsubscribe = this.events.on('settings.changed', (e) => {
      if (!e.keys.includes('ipLimitEnable')) return;
      void this.accessLog
        .refresh(this.services)
        .then(async (changed) => {
          if (!changed || this.services.core.status().state !== 'running') return;
          this.logger.info('ipLimitEnable changed: restarting the core to switch its access log');
          await this.services.core.restart();
        })
        .catch((err) => this.logger.warn('switching the core access log failed', { error: String(err) }));
    });
    this.runner = new JobRunner(this.logger);
    this.runner.every('traffic', this.intervalMs, () => this.services.traffic.tick());
  }

  /** Call before the core is stopped: no counter moved since the last tick is lost. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.runner?.stop();
    this.runner = null;
    try {
      const d = await this.services.traffic.flush();
      this.logger.info('traffic counters flushed', {
        clients: d.clients.length,
        inbounds: d.inbounds.length,
        outbounds: d.outbounds.length,
      });
    } catch (err) {
      this.logger.error('flushing traffic counters failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
