// What the panel process and its launcher agree on: the exit code that means "start me again" (a self-update
// hands over with it) and the ready file the panel writes once it serves requests.
export const RESTART_EXIT_CODE = 75;
export const READY_FILE = 'panel.ready';

/** The exit code main.ts uses after a graceful stop (the installer sets RESTART_EXIT_CODE). */
export const lifecycle = { exitCode: 0 };
