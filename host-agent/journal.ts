// The panel's systemd journal for `logs` with `syslog: true`: `journalctl -u <unit>` when this process runs as
// a systemd service (INVOCATION_ID is set and /proc/self/cgroup names the unit) and journalctl exists.
import { execFile } from 'node:child_process';
import { readFileSync, accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { LogLevel, SystemJournal } from '../domain/ports/server-tools.js';

/** journalctl priorities: everything at or above the level. */
const PRIORITY: Record<LogLevel, string> = { debug: '7', info: '6', warn: '4', error: '3' };

export interface JournalOptions {
  env?: NodeJS.ProcessEnv;
  /** The text of /proc/self/cgroup (tests inject). */
  cgroup?: () => string;
}

/** `proxy-panel.service` from a cgroup line such as `0::/system.slice/proxy-panel.service`. */
export function unitFromCgroup(text: string): string | null {
  for (const line of text.split('\n')) {
    const m = /\/([A-Za-z0-9@._\\:-]+\.service)(\/|$)/.exec(line.split(':').slice(2).join(':'));
    if (m) return m[1]!;
  }
  return null;
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

export function createSystemJournal(opts: JournalOptions = {}): SystemJournal {
  const env = opts.env ?? process.env;
  const cgroup = opts.cgroup ?? (() => readFileSync('/proc/self/cgroup', 'utf8'));
  return {
    async tail(count, level) {
      let unit = env.PANEL_SYSTEMD_UNIT || null;
      if (!unit) {
        if (!env.INVOCATION_ID) return { unavailable: 'the panel is not running under systemd' };
        try {
          unit = unitFromCgroup(cgroup());
        } catch {
          unit = null;
        }
        if (!unit)
          return {
            unavailable: 'the panel runs under systemd but its unit name was not found (set PANEL_SYSTEMD_UNIT)',
          };
      }
      const bin = findOnPath('journalctl', env);
      if (!bin) return { unavailable: 'journalctl is not installed' };
      const args = ['-u', unit, '-n', String(count), '-p', PRIORITY[level], '--no-pager', '-o', 'short-iso'];
      return new Promise((resolve) => {
        execFile(bin, args, { env, timeout: 10_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
          if (err)
            resolve({
              unavailable: `journalctl failed: ${(stderr || err.message).trim().split('\n')[0]!.slice(0, 200)}`,
            });
          else resolve({ lines: stdout.split('\n').filter((l) => l && !l.startsWith('-- ')) });
        });
      });
    },
  };
}
