// Database backup and restore (getDb, importDB, backuptotgbot). The file database supports all of it; on
// PostgreSQL every method throws a DomainError telling the operator to use pg_dump / pg_restore.

export interface RestoreResult {
  tables: number;
  rows: number;
}

export interface BackupRepo {
  /** True when the database is a single file this panel can copy and replace (libsql). */
  readonly fileBased: boolean;
  /** A consistent copy of the whole database file (`VACUUM INTO` a temporary file). */
  snapshot(): Promise<Uint8Array>;
  /** Writes a consistent copy of the database to `path` (must not exist). */
  snapshotTo(path: string): Promise<void>;
  /**
   * Checks that `data` is a SQLite database of this panel (header, integrity, required tables), brings a
   * copy up to the current schema, and replaces the content of every table with it in one transaction.
   * Invalid input throws a DomainError and changes nothing. `beforeReplace` runs once the upload is accepted,
   * just before the data is replaced (importDB keeps its backup copy there).
   */
  restore(data: Uint8Array, opts?: { beforeReplace?: () => Promise<void> }): Promise<RestoreResult>;
}
