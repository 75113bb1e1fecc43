// Database backup and restore (getDb, importDB, backuptotgbot, `panel db export|import`). One portable format on
// both backends: a SQLite file with this panel's SQLite schema. The file database copies itself with VACUUM INTO;
// PostgreSQL writes every table, read in one repeatable-read transaction, into a fresh file of that schema.
import type { StoredClientRow } from '../clients/model.js';

export interface RestoreResult {
  tables: number;
  rows: number;
  /** `panel`: a backup of this panel; `x-ui`: a 3x-ui database converted on the way in. */
  format: 'panel' | 'x-ui';
  /** What the conversion of another panel's database left out, and why (empty for a panel backup). */
  skipped: { what: string; reason: string }[];
  /** What the conversion brought over, by kind (empty for a panel backup). */
  converted: Record<string, number>;
  /** Set when the imported admin password could not be kept: the new password, to be shown once. */
  newAdminPassword?: string;
}

/** The tables of a foreign database, as read from the file: table → rows (column name → value). */
export interface ForeignDatabase {
  format: 'x-ui';
  tables: Record<string, Record<string, unknown>[]>;
}

/** Rows for this panel's tables (JS field names of the storage schema), produced by a converter. */
export interface ConvertedPanel {
  users: { id: number; username: string; passwordHash: string; sessionVersion: number }[];
  settings: { key: string; value: unknown }[];
  apiTokens: { name: string; token: string; enabled: boolean; createdAt: number }[];
  inbounds: {
    id: number;
    up: number;
    down: number;
    total: number;
    remark: string;
    enable: boolean;
    expiryTime: number;
    listen: string;
    port: number;
    protocol: string;
    settings: string;
    streamSettings: string;
    sniffing: string;
    tag: string;
    nodeId: number | null;
  }[];
  nodes: {
    id: number;
    name: string;
    remark: string;
    scheme: string;
    address: string;
    port: number;
    basePath: string;
    apiToken: string;
    enable: boolean;
    allowPrivateAddress: boolean;
    createdAt: number;
    updatedAt: number;
  }[];
  customGeo: { type: string; alias: string; url: string; lastDownload: number }[];
  clients: StoredClientRow[];
  clientInbounds: { clientId: number; inboundId: number }[];
  clientTraffics: { email: string; up: number; down: number; enable: boolean; lastOnline: number }[];
  clientGroups: { name: string; createdAt: number }[];
  fallbacks: {
    masterId: number;
    childId: number;
    name: string;
    alpn: string;
    path: string;
    xver: number;
    sortOrder: number;
  }[];
  outboundTraffics: { tag: string; up: number; down: number }[];
}

export interface ConversionResult {
  panel: ConvertedPanel;
  skipped: { what: string; reason: string }[];
  converted: Record<string, number>;
  newAdminPassword?: string;
}

export interface RestoreOptions {
  /** Runs once the upload is accepted, just before the data is replaced (importDB keeps its backup copy there). */
  beforeReplace?: () => Promise<void>;
  /** Converts another panel's database (3x-ui); without it such a file is refused. */
  convertForeign?: (db: ForeignDatabase) => Promise<ConversionResult>;
}

export interface BackupRepo {
  /** A consistent SQLite snapshot of the whole panel database, on either backend. */
  snapshot(): Promise<Uint8Array>;
  /** Writes that snapshot to `path` (created with mode 0600; an existing file is replaced atomically). */
  snapshotTo(path: string): Promise<void>;
  /**
   * Checks that `data` is a SQLite database of this panel (header, integrity, required tables, not from a newer
   * schema) or of 3x-ui (converted by `convertForeign`), brings a copy up to the current schema, and replaces the
   * content of every table with it in one transaction. Invalid input throws a DomainError and changes nothing.
   */
  restore(data: Uint8Array, opts?: RestoreOptions): Promise<RestoreResult>;
  /** The same, reading the file at `path` (the command-line tool). */
  restoreFile(path: string, opts?: RestoreOptions): Promise<RestoreResult>;
}
