// The last panel log lines in memory, for POST /panel/api/server/logs/:count. The logger's sink tees every
// line it writes here (the logger has already applied PANEL_LOG_LEVEL and redaction).
import type { LogLevel, PanelLogSource } from '../../domain/ports/server-tools.js';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
export const LOG_RING_SIZE = 10_000;

export class LogRing implements PanelLogSource {
  private lines: string[] = [];
  private levels: number[] = [];
  private start = 0;

  constructor(private readonly size = LOG_RING_SIZE) {}

  /** Records one formatted line (JSON with a `level` field, as adapters/node/logger.ts writes). */
  push(line: string): void {
    let lvl = ORDER.info;
    const m = /"level":"(debug|info|warn|error)"/.exec(line);
    if (m) lvl = ORDER[m[1] as LogLevel];
    if (this.lines.length < this.size) {
      this.lines.push(line);
      this.levels.push(lvl);
    } else {
      this.lines[this.start] = line;
      this.levels[this.start] = lvl;
      this.start = (this.start + 1) % this.size;
    }
  }

  /** A sink that records the line and passes it on. */
  tee(next: (line: string) => void): (line: string) => void {
    return (line) => {
      this.push(line);
      next(line);
    };
  }

  tail(count: number, level: LogLevel): string[] {
    const min = ORDER[level];
    const out: string[] = [];
    const n = this.lines.length;
    for (let k = n - 1; k >= 0 && out.length < count; k--) {
      const i = (this.start + k) % n;
      if (this.levels[i]! >= min) out.push(this.lines[i]!);
    }
    return out.reverse();
  }
}

/** The process-wide ring: main.ts feeds it through the logger, the server wires it into the services. */
export const panelLogRing = new LogRing();
