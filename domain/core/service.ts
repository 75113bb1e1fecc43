// Core use cases: start/restart/stop, the assembled config, the core settings payload and its validated update,
// getCoreResult, testOutbound, and the live sync (domain/core/sync.ts) wired to the domain events.
import type { Json } from '../inbounds/model.js';
import type { CoreControl, CoreStatus, OutboundProbeResult } from '../ports/core.js';
import type { Store } from '../ports/store.js';
import type { EventBus } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import { buildCoreConfig, type BuildResult } from './builder.js';
import { defaultTemplate, parseTemplate } from './template.js';
import { CoreSync } from './sync.js';
import { FileWriteThrottle } from './file-writes.js';
import type { TestOutboundInput } from './input.js';

export const DEFAULT_CORE_API_PORT = 62789;
export const DEFAULT_OUTBOUND_TEST_URL = 'https://www.google.com/generate_204';
const TEMPLATE_KEY = 'coreSetting';
const TEST_URL_KEY = 'outboundTestUrl';

export interface CoreServiceOptions {
  apiPort?: number;
  /** The core's access-log file (set when the IP-limit reader needs it). */
  accessLog?: () => string | undefined;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Stores the counters the running core holds before it restarts or stops (a restart zeroes them). */
  beforeRestart?: () => Promise<unknown>;
}

export interface CoreSettingsPayload {
  coreSetting: string;
  inboundTags: string;
  clientReverseTags: string;
  outboundTestUrl: string;
}

const tail = (text: string, n = 6) => text.trim().split('\n').filter(Boolean).slice(-n).join('\n');

/** Client changes that only touch panel-side labels (groups): nothing the core runs depends on them. */
const LABEL_ONLY_ACTIONS = new Set(['groupRename', 'groupDelete', 'bulkAssignGroup']);

export class CoreService {
  readonly sync: CoreSync;
  readonly apiPort: number;
  private queue: Promise<unknown> = Promise.resolve();
  private notes: string[] = [];
  private lastState = '';
  private fileWrites: FileWriteThrottle;
  private fileGen = 0;

  constructor(
    private store: Store,
    private core: CoreControl,
    private events: EventBus,
    private opts: CoreServiceOptions = {},
  ) {
    this.apiPort = opts.apiPort ?? DEFAULT_CORE_API_PORT;
    this.fileWrites = new FileWriteThrottle(
      async () => {
        const gen = ++this.fileGen;
        if (this.core.status().state !== 'running') return;
        const b = await this.build();
        if (gen !== this.fileGen) return;
        await this.core.writeConfig(b.config);
      },
      undefined,
      (err) => this.logWriteFailure(err),
    );
    this.sync = new CoreSync({
      view: store.coreView,
      core,
      build: () => this.build(),
      reload: (reason) => this.reloadNow(reason),
      enqueue: (fn) => this.enqueue(fn),
      changed: (build) => this.scheduleFileWrite(build),
      log: opts.log,
    });
    events.on('clients.changed', (e) => {
      if (!LABEL_ONLY_ACTIONS.has(e.action)) void this.sync.clientsChanged(e.emails);
    });
    events.on('inbounds.changed', (e) => void this.sync.inboundsChanged(e.ids));
    core.setRecovery?.(() => this.enqueue(() => this.reloadNow('the core died unexpectedly')));
  }

  /** Serial queue: restarts, stops and live changes never interleave. */
  enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  status(): CoreStatus {
    return this.core.status();
  }

  /** The adapter reports every state change of the process here (crashes included). */
  reportState(status: CoreStatus = this.core.status()): void {
    const key = `${status.state}|${status.error}`;
    if (key === this.lastState) return;
    const prev = this.lastState.split('|')[0];
    this.lastState = key;
    this.events.emit('core.state', { state: status.state, error: status.error || undefined });
    if (status.state === 'error' && prev === 'running') {
      this.events.emit('notification', { title: 'Core stopped unexpectedly', body: status.error, severity: 'error' });
      this.sync.clear();
    }
  }

  async template(): Promise<Json> {
    const stored = await this.store.settings.get(TEMPLATE_KEY);
    if (stored && typeof stored === 'object' && !Array.isArray(stored)) return stored as Json;
    return defaultTemplate(this.apiPort);
  }

  defaultTemplate(): Json {
    return defaultTemplate(this.apiPort);
  }

  async build(template?: Json): Promise<BuildResult> {
    const [tpl, view] = await Promise.all([
      template ? Promise.resolve(template) : this.template(),
      this.store.coreView.load(),
    ]);
    const flavour = this.core.status().flavour;
    const result = buildCoreConfig(tpl, view, {
      flavour: flavour === 'unknown' ? 'xray' : flavour,
      apiPort: this.apiPort,
      accessLog: this.opts.accessLog?.(),
    });
    this.notes = result.notes;
    return result;
  }

  /** `getConfigJson`: exactly what the core runs (the live sync keeps the core equal to this). */
  async configJson(): Promise<Json> {
    return (await this.build()).config;
  }

  /** Start-up: run the core on the current config. Failures become the core's state, not an exception. */
  async start(): Promise<void> {
    await this.enqueue(async () => {
      try {
        await this.reloadNow('panel start');
      } catch (err) {
        this.opts.log?.('core did not start', { error: err instanceof Error ? err.message : String(err) });
      }
    });
  }

  private async flushCounters(): Promise<void> {
    if (!this.opts.beforeRestart || this.core.status().state !== 'running') return;
    try {
      await this.opts.beforeRestart();
    } catch (err) {
      this.opts.log?.('storing counters before the core restart failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private async reloadNow(reason: string): Promise<void> {
    await this.flushCounters();
    const build = await this.build();
    this.fileGen++; // the restart writes the file itself
    try {
      await this.core.restart(build.config);
    } catch (err) {
      // A config the core refused leaves the old core running on the old config: keep what is applied.
      if (this.core.status().state !== 'running') this.sync.clear();
      this.reportState();
      throw err;
    }
    this.sync.reset(build, this.core.status().flavour);
    this.reportState();
    this.opts.log?.('core (re)started', { reason });
  }

  /** restartCoreService: rebuild and restart; an invalid config fails and leaves the running core alone. */
  async restart(): Promise<void> {
    await this.enqueue(async () => {
      try {
        await this.reloadNow('restart requested');
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        this.events.emit('notification', { title: 'Core restart failed', body: msg, severity: 'error' });
        throw new DomainError(`core restart failed: ${msg}`);
      }
      this.events.emit('notification', {
        title: 'Core restarted',
        body: `core ${this.core.status().version} is running`,
        severity: 'success',
      });
    });
  }

  /** stopCoreService: fails when the core is not running. */
  async stop(): Promise<void> {
    await this.enqueue(async () => {
      if (this.core.status().state !== 'running') throw new DomainError('core is not running');
      await this.flushCounters();
      try {
        await this.core.stop();
      } catch (err) {
        throw new DomainError(err instanceof Error ? err.message : String(err));
      }
      this.sync.clear();
      this.reportState();
      this.events.emit('notification', { title: 'Core stopped', body: 'all proxies are offline', severity: 'warning' });
    });
  }

  async settingsPayload(): Promise<CoreSettingsPayload> {
    const [tpl, tags, reverse, url] = await Promise.all([
      this.template(),
      this.store.coreView.inboundTags(),
      this.store.coreView.clientReverseTags(),
      this.store.settings.get(TEST_URL_KEY),
    ]);
    return {
      coreSetting: JSON.stringify(tpl, null, 2),
      inboundTags: JSON.stringify(tags),
      clientReverseTags: JSON.stringify(reverse),
      outboundTestUrl: typeof url === 'string' && url ? url : DEFAULT_OUTBOUND_TEST_URL,
    };
  }

  /**
   * Saves a new template (and test URL) after the core accepted the full config built from it in a test run;
   * nothing is saved otherwise. A running core is reloaded on the new config.
   */
  async updateSettings(input: {
    coreSetting: string;
    outboundTestUrl?: string;
  }): Promise<{ tested: boolean; restarted: boolean }> {
    const template = parseTemplate(input.coreSetting);
    let url: string | undefined;
    if (input.outboundTestUrl !== undefined) {
      url = input.outboundTestUrl.trim() || DEFAULT_OUTBOUND_TEST_URL;
      if (!/^https?:\/\/[^\s/]+/i.test(url)) throw new DomainError('outboundTestUrl: must be an http(s) URL');
    }
    return this.enqueue(async () => {
      const build = await this.build(template);
      const t = await this.core.test(build.config);
      if (!t.ok) throw new DomainError(`coreSetting: the core rejected the config: ${tail(t.output)}`);
      await this.store.settings.setMany(
        url === undefined ? { [TEMPLATE_KEY]: template } : { [TEMPLATE_KEY]: template, [TEST_URL_KEY]: url },
      );
      let restarted = false;
      if (this.core.status().state === 'running') {
        await this.reloadNow('core settings changed');
        restarted = true;
      }
      return { tested: !t.skipped, restarted };
    });
  }

  /**
   * Edits the stored template (the provider integrations add and remove their outbounds): read, edited and
   * saved inside the serial queue so no other template change interleaves; the core must accept the full
   * config first, and a running core is reloaded on it. `edit` returns null for "no change".
   */
  async editTemplate<T>(
    edit: (template: Json) => { template: Json; result: T } | null,
  ): Promise<{ changed: boolean; tested: boolean; restarted: boolean; result?: T }> {
    return this.enqueue(async () => {
      const r = edit(await this.template());
      if (!r) return { changed: false, tested: false, restarted: false };
      parseTemplate(JSON.stringify(r.template));
      const build = await this.build(r.template);
      const t = await this.core.test(build.config);
      if (!t.ok) throw new DomainError(`the core rejected the config with this change: ${tail(t.output)}`);
      await this.store.settings.setMany({ [TEMPLATE_KEY]: r.template });
      let restarted = false;
      if (this.core.status().state === 'running') {
        await this.reloadNow('core template changed by an integration');
        restarted = true;
      }
      return { changed: true, tested: !t.skipped, restarted, result: r.result };
    });
  }

  /** getCoreResult: the latest core output, then why parts of the config were adapted or left out. */
  coreResult(): string {
    const out = this.core.output();
    if (this.notes.length === 0) return out;
    return `${out}${out ? '\n' : ''}${this.notes.map((n) => `[panel] ${n}`).join('\n')}`;
  }

  /** testOutbound: `mode` "tcp" dials; "" runs a full HTTP probe through a temporary core. */
  async testOutbound(input: TestOutboundInput): Promise<OutboundProbeResult> {
    const stored = await this.store.settings.get(TEST_URL_KEY);
    const url = typeof stored === 'string' && stored ? stored : DEFAULT_OUTBOUND_TEST_URL;
    return this.core.probeOutbound({
      outbound: input.outbound,
      allOutbounds: input.allOutbounds,
      mode: input.mode as 'tcp' | '',
      allowPrivate: input.allowPrivate === true,
      url,
    });
  }

  /**
   * Keeps the config file equal to what runs: written at once with a full build, else a moment after live changes
   * (coalesced and spaced out, see file-writes.ts). The rebuild runs outside the serial queue so live changes never
   * wait for it; a newer write or a restart supersedes it.
   */
  private scheduleFileWrite(build?: BuildResult): void {
    if (build) {
      this.fileWrites.cancel();
      this.fileGen++;
      void this.core.writeConfig(build.config).catch((err) => this.logWriteFailure(err));
      return;
    }
    this.fileWrites.changed();
  }

  private logWriteFailure(err: unknown): void {
    this.opts.log?.('core config write failed', { error: String(err) });
  }

  /** Graceful stop: cancel the pending file write (the next start rebuilds the file). */
  dispose(): void {
    this.fileWrites.cancel();
  }
}
