// The proxy core port: process control, live user/inbound changes (HandlerService) and counters
// (StatsService). host-agent/ implements it for Xray and V2Ray v4; tests use test/support/fake-core.ts.
import type { Protocol } from '../inbounds/model.js';

export type CoreState = 'running' | 'stopped' | 'error';
export type CoreFlavour = 'xray' | 'v2ray' | 'unknown';

export interface CoreStatus {
  state: CoreState;
  /** Core version, e.g. "1.8.24"; "" when unknown (no binary). */
  version: string;
  flavour: CoreFlavour;
  /** Why the core is not running (missing binary, invalid config, crash…); "" when running. */
  error: string;
  pid: number | null;
}

/** One counter from StatsService, e.g. `user>>>alice>>>traffic>>>uplink`. Values are cumulative since core start. */
export interface CoreStat {
  name: string;
  value: number;
}

/** A user as the core's HandlerService wants it; the account type is derived from the inbound's protocol. */
export interface CoreUser {
  email: string;
  /** VLESS/VMess id. */
  id?: string;
  flow?: string;
  /** Trojan/Shadowsocks password. */
  password?: string;
  /** Shadowsocks cipher (a `2022-…` method selects the shadowsocks-2022 account, where the password is the key). */
  method?: string;
  /** VMess security (cipher), e.g. `auto`. */
  security?: string;
  /** Hysteria auth. */
  auth?: string;
}

/** Input of testOutbound: `mode` "tcp" dials only; "" runs a full HTTP probe through a temporary core. */
export interface OutboundProbeInput {
  outbound: Record<string, unknown>;
  /** Every outbound, to resolve `dialerProxy` / `proxySettings.tag` chains. */
  allOutbounds: Record<string, unknown>[];
  mode: 'tcp' | '';
  /** Allow a first hop on a private, loopback or reserved address (refused by default, as in the guarded fetch). */
  allowPrivate: boolean;
  /** URL fetched by the full probe. */
  url: string;
}

export interface OutboundProbeResult {
  success: boolean;
  /** Milliseconds (dial time, or time to the response headers). */
  delay: number;
  error: string;
}

export interface CoreControl {
  status(): CoreStatus;
  /** Latest core process output (for getCoreResult). */
  output(): string;
  /** Validates a config with the core binary (`-test`), without switching to it. */
  test(config: object): Promise<{ ok: boolean; output: string; skipped?: boolean }>;
  /** Writes the config atomically, tests it, and (re)starts the core on it. Throws with the reason on failure. */
  restart(config: object): Promise<void>;
  /** Stops the core. Throws when it is not running. */
  stop(): Promise<void>;
  /** Live changes through HandlerService; idempotent ("already exists"/"not found" are successes). */
  addUser(inboundTag: string, protocol: Protocol, user: CoreUser): Promise<void>;
  removeUser(inboundTag: string, email: string): Promise<void>;
  addInbound(inbound: object): Promise<void>;
  removeInbound(tag: string): Promise<void>;
  /** StatsService.QueryStats without reset; empty when the core is not running. */
  queryStats(pattern?: string): Promise<CoreStat[]>;
  /** Writes the config file atomically without restarting (keeps the file in step with live changes). */
  writeConfig(config: object): Promise<void>;
  /** testOutbound: a dial, or an HTTP request through a temporary core on a free loopback port. */
  probeOutbound(input: OutboundProbeInput): Promise<OutboundProbeResult>;
  /**
   * What to do when the core dies unexpectedly (the core service rebuilds the config); default respawns on the file.
   */
  setRecovery?(fn: () => Promise<void>): void;
}
