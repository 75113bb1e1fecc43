// Small ports the adapter provides about the running process and its host files.

export interface FileProbe {
  /** True when `path` is a regular file this process can read. */
  isReadableFile(path: string): Promise<boolean>;
}

export interface PanelControl {
  /** Restarts listeners and background work in-process (after the caller has answered). */
  requestRestart(delayMs: number): void;
}

/** Static facts about this process. */
export interface RuntimeInfo {
  panelVersion: string;
  dataDir: string;
  /** Loopback port of the core's API inbound (PANEL_CORE_API_PORT; default 62789). */
  coreApiPort?: number;
}
