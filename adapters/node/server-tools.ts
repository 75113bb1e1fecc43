// Wiring of the server tools on the node host: the ServerHost (data directory files), the panel log ring, and
// the switch to a freshly installed core binary.
import { join } from 'node:path';
import type { ServerToolsPorts } from '../../domain/server-tools/service.js';
import type { CoreBinarySwitch } from '../../domain/ports/server-tools.js';
import type { CoreSupervisor } from '../../host-agent/core/supervisor.js';
import { createServerHost } from '../../host-agent/server-host.js';
import { panelLogRing } from './log-ring.js';
import { createSystemJournal } from '../../host-agent/journal.js';

export interface NodeServerToolsOptions {
  dataDir: string;
  /** PANEL_CORE_BIN when set. */
  coreBin?: string;
  /** The supervisor in use (null when the panel started without a usable core binary). */
  supervisor: () => CoreSupervisor | null;
  /** The binary the supervisor was created with. */
  supervisorBin: string;
}

export function nodeServerTools(opts: NodeServerToolsOptions): ServerToolsPorts {
  const local = join(opts.dataDir, 'bin', process.platform === 'win32' ? 'xray.exe' : 'xray');
  const coreSwitch: CoreBinarySwitch = {
    async activate(path) {
      if (opts.coreBin && opts.coreBin !== path) {
        return { ok: false, note: `PANEL_CORE_BIN=${opts.coreBin} selects another binary; unset it and restart the panel to use ${path}` };
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
  return { host: createServerHost({ dataDir: opts.dataDir }), logs: panelLogRing, journal: createSystemJournal(), coreSwitch };
}
