// The core process supervisor: atomic config writes, `-test` before switching, start/stop/restart, restart with
// backoff after an unexpected death, no orphans (pid file checked at start, child killed on process exit), and
// the gRPC API for live changes and counters.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { waitForPort } from './net.js';
import type {
  CoreControl,
  CoreFlavour,
  CoreStat,
  CoreState,
  CoreStatus,
  CoreUser,
  OutboundProbeInput,
  OutboundProbeResult,
} from '../../domain/ports/core.js';
import type { Protocol } from '../../domain/inbounds/model.js';
import { CoreApiClient, inboundsOfCoreConfig, UnsupportedLiveChange } from './grpc-client.js';
import { detectVersion, resolveBinary, v2ctlFor } from './binary.js';
import { writeFileAtomic } from './files.js';
import { jsonText } from './json-text.js';
import { probeOutbound } from './outbound-test.js';

export interface SupervisorLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface SupervisorOptions {
  bin: string;
  dataDir: string;
  logger?: SupervisorLogger;
  /** Called on every state change (the adapter turns it into `core.state` events). */
  onState?: (status: CoreStatus) => void;
  env?: NodeJS.ProcessEnv;
  /** Delays before restarting after consecutive unexpected deaths. */
  backoffMs?: number[];
  /** How long a start may take before the API port must answer. */
  startTimeoutMs?: number;
}

const OUTPUT_LINES = 300;
const STOP_GRACE_MS = 3000;
const STABLE_MS = 30_000;
const isObject = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The API inbound's port in a config (the inbound whose tag is `api.tag`). */
export function apiPortOf(config: Record<string, any>): number | null {
  const tag = isObject(config.api) && typeof config.api.tag === 'string' ? config.api.tag : 'api';
  const ib = Array.isArray(config.inbounds) ? config.inbounds.find((i: any) => isObject(i) && i.tag === tag) : null;
  return ib && Number.isInteger(ib.port) ? ib.port : null;
}

/**
 * How long a config test may run. The core sets up every user while it tests (V2Ray 4.34 took 14 s for 30,000 VMess
 * users on a slow day of a 2-core VM), so the limit grows with the clients; it only guards against a core that hangs
 * (a valid config refused for time would stop every later change from reaching the core).
 */
export function testTimeoutMs(config: object): number {
  const inbounds = (config as { inbounds?: unknown }).inbounds;
  let clients = 0;
  if (Array.isArray(inbounds)) {
    for (const ib of inbounds) {
      const list = isObject(ib) && isObject(ib.settings) ? ib.settings.clients : null;
      if (Array.isArray(list)) clients += list.length;
    }
  }
  return 30_000 + 2 * clients;
}

function runCapture(
  bin: string,
  args: string[],
  input?: string | Buffer | Iterable<string>,
  env?: NodeJS.ProcessEnv,
  timeout = 15_000,
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      bin,
      args,
      { timeout, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, env },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0;
        if (err && typeof (err as any).code === 'string') return reject(err);
        resolve({ code, stdout: stdout as Buffer, stderr: (stderr as Buffer).toString('utf8') });
      },
    );
    if (input === undefined) return;
    if (typeof input === 'string' || Buffer.isBuffer(input)) {
      child.stdin?.end(input);
    } else if (child.stdin) {
      // Pieces of a large text, written as the pipe drains; a child that exits early closes the pipe (EPIPE): its
      // exit code and output say why.
      child.stdin.on('error', () => undefined);
      Readable.from(input).pipe(child.stdin);
    }
  });
}

function isOurStaleCore(pid: number, configPath: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmdline.includes(configPath);
  } catch {
    return false;
  }
}

export { waitForPort };

export class CoreSupervisor implements CoreControl {
  private child: ChildProcess | null = null;
  private state: CoreState = 'stopped';
  private error = '';
  private version = '';
  private flavour: CoreFlavour = 'unknown';
  private resolved: string | null = null;
  private lines: string[] = [];
  private api: CoreApiClient | null = null;
  private expectedExit = new WeakSet<ChildProcess>();
  private restartTimer: NodeJS.Timeout | null = null;
  private crashes = 0;
  private startedAt = 0;
  private recovery: (() => Promise<void>) | null = null;
  private stopped = false;
  private op: Promise<unknown> = Promise.resolve();
  readonly configPath: string;
  readonly pidPath: string;
  private readonly backoff: number[];
  private readonly onExitHook = () => this.killNow();

  constructor(private opts: SupervisorOptions) {
    const dir = join(opts.dataDir, 'core');
    this.configPath = join(dir, 'config.json');
    this.pidPath = join(dir, 'core.pid');
    this.backoff = opts.backoffMs ?? [300, 1000, 2000, 5000, 10_000, 30_000];
    process.on('exit', this.onExitHook);
  }

  /** Detects the binary and flavour, and kills a stale core this panel started before (pid file). */
  async init(): Promise<void> {
    mkdirSync(join(this.opts.dataDir, 'core'), { recursive: true, mode: 0o700 });
    this.killStale();
    this.resolved = resolveBinary(this.opts.bin, this.opts.env ?? process.env);
    if (!this.resolved) {
      this.setState(
        'stopped',
        `core binary not found: ${this.opts.bin} (set PANEL_CORE_BIN or put xray in ${join(this.opts.dataDir, 'bin')})`,
      );
      return;
    }
    try {
      const v = await detectVersion(this.resolved);
      this.flavour = v.flavour;
      this.version = v.version;
      this.log(`core binary ${this.resolved}: ${v.flavour} ${v.version}`);
    } catch (err) {
      this.resolved = null;
      this.setState(
        'stopped',
        `core binary ${this.opts.bin} does not run: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  get available(): boolean {
    return this.resolved !== null;
  }

  status(): CoreStatus {
    return {
      state: this.state,
      version: this.version,
      flavour: this.flavour,
      error: this.error,
      pid: this.child?.pid ?? null,
    };
  }

  output(): string {
    return this.lines.length ? this.lines.join('\n') : this.error;
  }

  setRecovery(fn: () => Promise<void>): void {
    this.recovery = fn;
  }

  private log(line: string): void {
    for (const l of line.split('\n')) {
      if (!l) continue;
      this.lines.push(l);
    }
    if (this.lines.length > OUTPUT_LINES) this.lines.splice(0, this.lines.length - OUTPUT_LINES);
  }

  private setState(state: CoreState, error = ''): void {
    const changed = state !== this.state || error !== this.error;
    this.state = state;
    this.error = error;
    if (changed) this.opts.onState?.(this.status());
  }

  private env(): NodeJS.ProcessEnv {
    const assets = join(this.opts.dataDir, 'bin');
    const base = this.opts.env ?? process.env;
    return {
      ...base,
      XRAY_LOCATION_ASSET: base.XRAY_LOCATION_ASSET ?? assets,
      V2RAY_LOCATION_ASSET: base.V2RAY_LOCATION_ASSET ?? assets,
    };
  }

  /** Serialises process operations. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.op.then(fn, fn);
    this.op = next.catch(() => undefined);
    return next;
  }

  async test(config: object): Promise<{ ok: boolean; output: string; skipped?: boolean }> {
    if (!this.resolved) return { ok: true, skipped: true, output: `not tested: ${this.error}` };
    const r = await runCapture(
      this.resolved,
      ['-test', '-config', 'stdin:'],
      jsonText(config),
      this.env(),
      testTimeoutMs(config),
    );
    const output = `${r.stdout.toString('utf8')}${r.stderr}`.trim();
    return { ok: r.code === 0, output };
  }

  async writeConfig(config: object): Promise<void> {
    mkdirSync(join(this.opts.dataDir, 'core'), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.configPath, jsonText(config));
  }

  restart(config: object): Promise<void> {
    return this.serial(async () => {
      if (!this.resolved) throw new Error(this.error || 'core binary not available');
      this.stopped = false;
      this.cancelRestartTimer();
      const t = await this.test(config);
      if (!t.ok) {
        this.log(t.output);
        throw new Error(`invalid core config: ${lastLines(t.output)}`);
      }
      await this.writeConfig(config);
      await this.stopChild();
      await this.spawnChild(apiPortOf(config as Record<string, any>));
    });
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      this.cancelRestartTimer();
      const wasRunning = this.child !== null && this.state === 'running';
      this.stopped = true;
      if (!wasRunning) {
        if (this.child) await this.stopChild();
        throw new Error('core is not running');
      }
      await this.stopChild();
      this.setState('stopped');
    });
  }

  /** Stops the core for good (panel shutdown): no error when it is not running. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    this.cancelRestartTimer();
    await this.serial(async () => {
      await this.stopChild();
      if (this.state === 'running') this.setState('stopped');
    });
    process.off('exit', this.onExitHook);
  }

  private async spawnChild(apiPort: number | null): Promise<void> {
    const bin = this.resolved!;
    const child = spawn(bin, ['-config', this.configPath], { stdio: ['ignore', 'pipe', 'pipe'], env: this.env() });
    this.child = child;
    const started = await new Promise<boolean>((resolve) => {
      child.once('error', (err) => {
        this.log(`spawn failed: ${err.message}`);
        resolve(false);
      });
      child.once('spawn', () => resolve(true));
    });
    if (!started || !child.pid) {
      this.child = null;
      this.setState('error', `core failed to start: ${lastLines(this.output())}`);
      throw new Error(this.error);
    }
    writeFileSync(this.pidPath, JSON.stringify({ pid: child.pid, bin, config: this.configPath }), { mode: 0o600 });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => this.log(d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => this.log(d));
    let exited = false;
    child.once('exit', (code, signal) => {
      exited = true;
      this.onChildExit(child, code, signal);
    });
    const ok = apiPort ? await waitForPort(apiPort, this.opts.startTimeoutMs ?? 5000, () => !exited) : !exited;
    if (!ok) {
      if (!exited) {
        this.expectedExit.add(child);
        child.kill('SIGKILL');
      }
      this.child = null;
      const msg = `core did not start: ${lastLines(this.output())}`;
      this.setState('error', msg);
      throw new Error(msg);
    }
    this.api?.close();
    this.api = apiPort
      ? new CoreApiClient(`127.0.0.1:${apiPort}`, this.flavour === 'unknown' ? 'xray' : this.flavour)
      : null;
    // Open the gRPC channel now so the first live change does not pay for the connection.
    await this.api?.queryStats('>>>panel-warmup>>>').catch(() => undefined);
    this.startedAt = Date.now();
    this.setState('running');
  }

  private onChildExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child === child) this.child = null;
    try {
      if (!this.child) unlinkSync(this.pidPath);
    } catch {
      /* none */
    }
    if (this.expectedExit.has(child)) return;
    const why = `core exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`})${this.lines.length ? `: ${lastLines(this.output(), 3)}` : ''}`;
    this.log(why);
    this.opts.logger?.warn(why);
    this.setState('error', why);
    if (this.stopped) return;
    if (Date.now() - this.startedAt > STABLE_MS) this.crashes = 0;
    this.scheduleRecovery();
  }

  private scheduleRecovery(): void {
    const delay = this.backoff[Math.min(this.crashes, this.backoff.length - 1)]!;
    this.crashes++;
    this.cancelRestartTimer();
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopped || this.child) return;
      const run = this.recovery ? this.recovery() : this.serial(() => this.respawnFromFile());
      run.catch((err) => {
        this.opts.logger?.error('core restart after a crash failed', { error: String(err) });
        if (!this.stopped && !this.child) this.scheduleRecovery();
      });
    }, delay);
    this.restartTimer.unref?.();
  }

  private async respawnFromFile(): Promise<void> {
    if (this.child || this.stopped) return;
    const config = JSON.parse(readFileSync(this.configPath, 'utf8'));
    await this.spawnChild(apiPortOf(config));
  }

  private cancelRestartTimer(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }

  private async stopChild(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.expectedExit.add(child);
    this.child = null;
    this.api?.close();
    this.api = null;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
    try {
      unlinkSync(this.pidPath);
    } catch {
      /* none */
    }
  }

  /** Synchronous last resort on process exit: never leave the core behind. */
  private killNow(): void {
    const child = this.child;
    if (child && child.exitCode === null) {
      this.expectedExit.add(child);
      try {
        child.kill('SIGKILL');
      } catch {
        /* gone */
      }
      try {
        unlinkSync(this.pidPath);
      } catch {
        /* none */
      }
    }
  }

  private killStale(): void {
    if (!existsSync(this.pidPath)) return;
    try {
      const { pid } = JSON.parse(readFileSync(this.pidPath, 'utf8')) as { pid: number };
      if (Number.isInteger(pid) && pid > 1 && isOurStaleCore(pid, this.configPath)) {
        process.kill(pid, 'SIGKILL');
        this.opts.logger?.warn('killed a stale core left by a previous run', { pid });
      }
    } catch {
      /* unreadable pid file */
    }
    try {
      unlinkSync(this.pidPath);
    } catch {
      /* none */
    }
  }

  private requireApi(): CoreApiClient {
    if (!this.api || this.state !== 'running') throw new Error('core is not running');
    return this.api;
  }

  async addUser(inboundTag: string, protocol: Protocol, user: CoreUser): Promise<void> {
    await this.requireApi().addUser(inboundTag, protocol, user);
  }

  async removeUser(inboundTag: string, email: string): Promise<void> {
    await this.requireApi().removeUser(inboundTag, email);
  }

  async addInbound(inbound: object): Promise<void> {
    const api = this.requireApi();
    if (this.flavour === 'v2ray') {
      const v2ctl = v2ctlFor(this.resolved!);
      if (!v2ctl)
        throw new UnsupportedLiveChange('v2ctl (needed to add an inbound live) not found next to the core binary');
      const r = await runCapture(v2ctl, ['config', 'stdin:'], JSON.stringify({ inbounds: [inbound] }), this.env());
      if (r.code !== 0) throw new Error(`v2ctl config failed: ${lastLines(r.stderr)}`);
      const [handler] = inboundsOfCoreConfig(r.stdout);
      if (!handler) throw new Error('v2ctl config produced no inbound');
      await api.addInboundBytes(handler);
      return;
    }
    // Xray converts JSON itself: `xray api adi --server=… <file>`.
    const file = join(this.opts.dataDir, 'core', `.adi-${process.pid}-${Date.now()}.json`);
    writeFileAtomic(file, JSON.stringify({ inbounds: [inbound] }));
    try {
      const r = await runCapture(
        this.resolved!,
        ['api', 'adi', `--server=${api.address}`, file],
        undefined,
        this.env(),
      );
      if (r.code !== 0) throw new Error(`xray api adi failed: ${lastLines(`${r.stdout.toString('utf8')}${r.stderr}`)}`);
    } finally {
      try {
        unlinkSync(file);
      } catch {
        /* gone */
      }
    }
  }

  async removeInbound(tag: string): Promise<void> {
    await this.requireApi().removeInbound(tag);
  }

  async queryStats(pattern = ''): Promise<CoreStat[]> {
    if (this.state !== 'running' || !this.api) return [];
    return this.api.queryStats(pattern);
  }

  probeOutbound(input: OutboundProbeInput): Promise<OutboundProbeResult> {
    return probeOutbound(input, this.resolved, this.env());
  }
}

export function lastLines(text: string, n = 8): string {
  return text.trim().split('\n').filter(Boolean).slice(-n).join('\n');
}
