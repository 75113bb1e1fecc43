// Storage for traffic accounting and enforcement: batched, set-based writes (DESIGN.md principle 2).
import type { TrafficDeltas } from '../traffic/accounting.js';
import type { AccessObservation, SeenIp } from '../traffic/ip-limit.js';

export interface OutboundTrafficRow {
  tag: string;
  up: number;
  down: number;
  /** up + down. */
  total: number;
}

export interface EnforcementResult {
  /** Clients auto-disabled this pass (quota used or expiry passed): now depleted. */
  depleted: string[];
  /** Clients whose expiry passed with auto-renew on: expiry moved forward, counters zeroed, re-enabled if depleted. */
  renewed: string[];
  /** Inbounds disabled this pass (their own quota used or expiry passed). */
  inboundsDisabled: number[];
}

export interface TrafficRepo {
  /**
   * In ONE transaction: adds the client deltas by email (setting lastOnline to `nowMs` in seconds and turning a
   * delayed start into `nowMs + duration` for clients that moved), the inbound deltas by tag, and the outbound
   * deltas by tag (creating outbound rows on first sight). Unknown emails/tags are ignored (no rows created).
   */
  applyDeltas(deltas: TrafficDeltas, nowMs: number): Promise<void>;
  /**
   * One set-based pass in one transaction: auto-renew first, then depletion of clients (expiry for all; quota for
   * every client with `'all'` (the default), else only for the listed emails, those whose counters just moved), then of
   * inbounds.
   */
  enforce(nowMs: number, quotaScope?: 'all' | readonly string[]): Promise<EnforcementResult>;
  outbounds(): Promise<OutboundTrafficRow[]>;
  /** Zeroes one outbound's counters, or every outbound's with `'all'`. Returns the rows changed. */
  resetOutbounds(tag: string | 'all'): Promise<number>;

  /** Records the IPs seen now (upsert of email+ip with lastSeen = nowSec), for known clients only. */
  recordIps(seen: readonly AccessObservation[], nowSec: number): Promise<void>;
  /** limitIp of the given clients (only those with a limit > 0 are returned). */
  ipLimits(emails: readonly string[]): Promise<Map<string, number>>;
  /** The recorded IPs of the given clients. */
  ipsOf(emails: readonly string[]): Promise<Map<string, SeenIp[]>>;
  /** Drops IPs last seen before `beforeSec`. Returns rows removed. */
  pruneIps(beforeSec: number): Promise<number>;
}

/** The core's access log, tailed by the host agent. */
export interface AccessLogSource {
  /** Observations (email + source IP of accepted connections) since the previous call. */
  read(): Promise<AccessObservation[]>;
}

/** The IP-limit log a firewall tool such as fail2ban watches. */
export interface IpLimitLog {
  append(lines: readonly string[]): Promise<void>;
}
