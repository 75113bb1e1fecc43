// Wiring of the server tools on the node host: the ServerHost (data directory files), the panel log ring, and
// the switch to a freshly installed core binary.
import { join } from 'node:path';
import type { ServerToolsPorts } from '../../domain/server-tools/service.js';
import type { CoreBinarySwitch } from '../../domain/ports/server-tools.js';
import type { CoreSupervisor } from '../../host-agent/core/supervisor.js';
import { createServerHost } from '../../host-agent/server-host.js';
import { panelLogRing } from './log-ring.js';
import { createSystemJournal } from '../../host-agent/journal.js';
import { createPanelInstaller } from '../../host-agent/panel-installer.js';
import { lifecycle, RESTART_EXIT_CODE } from './lifecycle.js';

export interface NodeServerToolsOptions {
  dataDir: string;
  /** PANEL_CORE_BIN when set. */
  coreBin?: string;
  /** The supervisor in use (null when the panel started without a usable core binary). */
  supervisor: () => CoreSupervisor | null;
  /** The binary the supervisor was created with. */
  supervisorBin: string;
  /** The libsql database file, null for PostgreSQL (restored on an update's rollback). */
  dbFile?: string | null;
}

export function nodeServerTools(opts: NodeServerToolsOptions): ServerToolsPorts {
  const local = join(opts.dataDir, 'bin', process.platform === 'win32' ? 'xray.exe' : 'xray');
  const coreSwitch: CoreBinarySwitch = {
    async activate(path) {
      if (opts.coreBin && opts.coreBin !== path) {
        return {
          ok: false,
          note: `PANEL_CORE_BIN=${opts.coreBin} selects another binary; unset it and restart the panel to use ${path}`,
        };
      }
      const sup = opts.supervisor();
      if (!sup || opts.supervisorBin !== local) {
        return { ok: false, note: `restart the panel process to switch to ${path}` };
      }
      // Same path: stop the old process, re-detect version and flavour, and let the core service start it again.
      await sup.stop().catch(() => undefined);
      await sup.init();
      return sup.available ? { ok: true } : { ok: false, note: sup.status().error };
    },
  };
  const env = process.env;
  const installer = createPanelInstaller({
    prefix: env.PANEL_LAUNCHER === '1' && env.PANEL_PREFIX ? env.PANEL_PREFIX : null,
    dbFile: opts.dbFile ?? null,
    exitForRestart: () => {
      lifecycle.exitCode = RESTART_EXIT_CODE;
      process.kill(process.pid, 'SIGTERM');
    },
  });
  return {
    host: createServerHost({ dataDir: opts.dataDir }),
    logs: panelLogRing,
    journal: createSystemJournal(),
    coreSwitch,
    installer,
    // The panel's own release feed (RUNTIME.md): a mirror may live on a private network.
    panelFeed: { api: env.PANEL_RELEASE_API || undefined, download: env.PANEL_RELEASE_DOWNLOAD || undefined },
    panelRepo: env.PANEL_RELEASE_REPO || undefined,
    panelFeedAllowPrivate: env.PANEL_RELEASE_ALLOW_PRIVATE === 'true',
  };
}
