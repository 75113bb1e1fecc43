// Ports of the server tools (core versions and install, geo files, logs): what the domain needs from the
// panel host. host-agent/server-host.ts implements ServerHost; the node adapter provides the panel log ring
// and the switch to a newly installed core binary.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface PanelLogSource {
  /** The last `count` panel log lines at or above `level`, oldest first. */
  tail(count: number, level: LogLevel): string[];
}

export interface ServerHost {
  /** The release asset for this platform, e.g. `Xray-linux-64.zip`; null when there is none. */
  coreAssetName(): string | null;
  /** Unpacks the core binary from a release zip to `$PANEL_DATA_DIR/bin/xray` (atomic, 0755); returns its path. */
  installCoreBinary(zip: Uint8Array): Promise<string>;
  /** Writes `$PANEL_DATA_DIR/bin/<name>` atomically (`name` is a plain allow-listed file name). */
  writeGeoFile(name: string, data: Uint8Array): Promise<void>;
  /** The last `maxLines` lines of the core's log files in the data directory (access log, then error log). */
  coreLogLines(maxLines: number): Promise<string[]>;
  /** Absolute path for a new backup file `$PANEL_DATA_DIR/backups/<name>` (the folder is created). */
  backupPath(name: string): Promise<string>;
}

export interface CoreBinarySwitch {
  /**
   * Makes the running panel use the core binary just installed at `path` (re-detects its version) before the
   * core is restarted. Returns a note for the operator when the switch cannot happen in-process.
   */
  activate(path: string): Promise<{ ok: boolean; note?: string }>;
}

/** The service manager's journal (systemd), for `logs` with `syslog: true`. */
export interface SystemJournal {
  /** The last `count` lines at or above `level`, or why the journal cannot be read here. */
  tail(count: number, level: LogLevel): Promise<{ lines: string[] } | { unavailable: string }>;
}

/**
 * Self-update of an installed panel (host-agent/panel-installer.ts): releases unpacked side by side under the
 * install prefix, `current` pointing at the running one, and the launcher that restarts the panel, checks the
 * new version's health and rolls back (adapters/node/launcher.ts).
 */
export interface PanelInstaller {
  /** Why this panel cannot update itself (not started by the launcher…), or null when it can. */
  unavailable(): string | null;
  /** The platform-independent release asset name for a version. */
  assetName(version: string): string;
  /** Unpacks a verified archive beside the running release and runs the new release's migrations check. */
  stage(version: string, archive: Uint8Array): Promise<{ dir: string }>;
  /** Records the pending switch (with the database snapshot to restore on rollback) and stops the panel. */
  handOver(input: { fromVersion: string; toVersion: string; dir: string; dbSnapshot: string | null }): Promise<void>;
  /** The outcome of the last update as the launcher recorded it, if any. */
  lastResult(): Promise<{ result: string; from: string; to: string; at: number; reason?: string } | null>;
}
