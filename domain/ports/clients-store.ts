// Storage port for clients, their attachments, counters, source IPs and tombstones.
import type {
  BucketParams, ClientFull, ClientRecord, ClientSlim, ClientTrafficView, ClientWrite, PageQuery, StatusRow,
} from '../clients/model.js';

export type ReplaceResult = { outcome: 'ok'; traffic: ClientTrafficView } | { outcome: 'missing' | 'email-taken' };

export interface NewClient {
  row: ClientWrite;
  inboundIds: number[];
}

export interface ClientLimits {
  id: number;
  expiryTime: number;
  totalGB: number;
}

/** Which clients statuses() reads: the given emails, or ids in [fromId, toId] (either bound may be left open). */
export type StatusScope = { emails: string[] } | { fromId?: number; toId?: number };

export interface ClientsRepo {
  byEmail(email: string): Promise<ClientRecord | null>;
  byEmails(emails: string[]): Promise<ClientRecord[]>;
  full(email: string): Promise<ClientFull | null>;
  listFull(): Promise<ClientFull[]>;
  inboundIdsOf(clientId: number): Promise<number[]>;
  /** Client id + attachments, one transaction, tombstone removed, counters row created (kept counters survive). Null when the email is taken. */
  insert(row: ClientWrite, inboundIds: number[]): Promise<ClientRecord | null>;
  /** Chunked multi-row insert in ONE transaction; emails already taken are returned in `taken` (nothing written for them). */
  insertMany(items: NewClient[]): Promise<{ created: string[]; taken: string[] }>;
  /** Replaces the row (email may change: counters, IPs follow). `enable=true` also clears the auto-disable flag. */
  replace(id: number, oldEmail: string, row: ClientWrite): Promise<ReplaceResult>;
  /** Deletes clients (attachments cascade), their IPs, their counters unless kept; tombstones the emails. Returns the deleted emails in the order given. */
  remove(emails: string[], keepTraffic: boolean, now: number): Promise<string[]>;
  /** Adds attachments (existing ones ignored); returns how many were new. */
  attach(clientId: number, inboundIds: number[]): Promise<number>;
  detach(clientId: number, inboundIds: number[]): Promise<number>;
  /** One page (search, filter, protocol, sort in SQL) and the number of rows the filters match. */
  page(q: PageQuery, p: BucketParams): Promise<{ items: ClientSlim[]; filtered: number }>;
  /** How many clients there are. */
  count(): Promise<number>;
  /**
   * The statuses of the clients from id `fromId` on, in as many ids as the database reads well at once; `next` is
   * where the next batch starts, null after the last (see statuses()).
   */
  statusBatch(p: BucketParams, fromId: number): Promise<{ rows: StatusRow[]; next: number | null }>;
  /**
   * Emails whose status may have changed between `fromMs` and `toMs` with no client event: counters moved
   * (lastOnline at or after `fromMs`), or expiry — or expiry minus `expireDiffMs` — inside the window. Null when
   * there are more than `limit`.
   */
  changedSince(fromMs: number, toMs: number, expireDiffMs: number, limit: number): Promise<string[] | null>;
  statuses(p: BucketParams, scope?: StatusScope): Promise<StatusRow[]>;
  /** Emails whose status is depleted (same predicate as the bucket) and that delDepleted may remove. */
  deletableDepleted(p: BucketParams): Promise<string[]>;
  /** Zeroes counters and clears the auto-disable flag (re-enabling depleted clients). Returns emails of existing clients touched. */
  resetTraffic(emails: string[] | 'all'): Promise<{ emails: string[]; moved: boolean }>;
  /** Sets absolute counters (creates the row when missing). False when no such client. */
  setTraffic(email: string, up: number, down: number): Promise<boolean>;
  /** Writes new expiry/quota values in one transaction. */
  setLimits(rows: ClientLimits[], now: number): Promise<void>;
  /** Sets the group label; returns emails whose label changed. */
  setGroup(emails: string[], group: string, now: number): Promise<string[]>;
  onlines(sinceSeconds: number): Promise<string[]>;
  lastOnline(): Promise<Record<string, number>>;
  ips(email: string): Promise<{ ip: string; lastSeen: number }[]>;
  clearIps(email: string): Promise<number>;
  traffic(email: string): Promise<{ email: string; up: number; down: number; total: number; expiryTime: number } | null>;
  isTombstoned(email: string): Promise<boolean>;
}
