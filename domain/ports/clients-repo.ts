// Storage port for clients, their attachments, counters, source IPs and tombstones.
import type {
  BucketParams,
  ClientDetail,
  ClientRecord,
  ClientListRow,
  ClientTrafficView,
  ClientWrite,
} from '../clients/model.js';
import type { CatalogRow } from '../clients/catalog.js';

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

export interface ClientsRepo {
  byEmail(email: string): Promise<ClientRecord | null>;
  byEmails(emails: string[]): Promise<ClientRecord[]>;
  detail(email: string): Promise<ClientDetail | null>;
  listDetails(): Promise<ClientDetail[]>;
  inboundIdsOf(clientId: number): Promise<number[]>;
  /**
   * Client id + attachments, one transaction, tombstone removed, counters row created (kept counters survive). Null
   * when the email is taken.
   */
  insert(row: ClientWrite, inboundIds: number[]): Promise<ClientRecord | null>;
  /**
   * Chunked multi-row insert in ONE transaction; emails already taken are returned in `taken` (nothing written for
   * them).
   */
  insertMany(items: NewClient[]): Promise<{ created: string[]; taken: string[] }>;
  /** Replaces the row (email may change: counters, IPs follow). `enable=true` also clears the auto-disable flag. */
  replace(id: number, oldEmail: string, row: ClientWrite): Promise<ReplaceResult>;
  /**
   * Deletes clients (attachments cascade), their IPs, their counters unless kept; tombstones the emails. Returns the
   * deleted emails in the order given.
   */
  remove(emails: string[], keepTraffic: boolean, now: number): Promise<string[]>;
  /** Adds attachments (existing ones ignored); returns how many were new. */
  attach(clientId: number, inboundIds: number[]): Promise<number>;
  detach(clientId: number, inboundIds: number[]): Promise<number>;
  /** Slim rows of these client ids, in the order given (ids of clients gone are left out). */
  listRows(ids: number[]): Promise<ClientListRow[]>;
  /** The paged list's catalog rows of these emails (an email without a row has no client). */
  catalogRows(emails: string[]): Promise<CatalogRow[]>;
  /**
   * Catalog rows of the clients from id `fromId` on, in id order, as many ids as the database reads well at once;
   * `next` is where the next batch starts, null after the last.
   */
  catalogBatch(fromId: number): Promise<{ rows: CatalogRow[]; next: number | null }>;
  /** Emails whose status is depleted (same predicate as the bucket) and that delDepleted may remove. */
  deletableDepleted(p: BucketParams): Promise<string[]>;
  /**
   * Zeroes counters and clears the auto-disable flag (re-enabling depleted clients). Returns emails of existing clients
   * touched.
   */
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
  /** A client's counters, or those a client deleted with keepTraffic left behind (total and expiryTime 0). */
  traffic(
    email: string,
  ): Promise<{ email: string; up: number; down: number; total: number; expiryTime: number } | null>;
  isTombstoned(email: string): Promise<boolean>;
}
