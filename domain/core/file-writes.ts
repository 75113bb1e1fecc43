// When to rewrite the core's config file after live changes. The file only has to catch up with what runs (the
// core itself was changed through its API; a restart rebuilds from the database), so the rewrites are coalesced:
// the first one a moment after a change, and never more often than it takes to keep them at a tenth of the time
// (docs/decisions/0005-cost-spaced-core-config-rewrites.md).

export const FILE_WRITE_MIN_DELAY_MS = 1000;
export const FILE_WRITE_MAX_DELAY_MS = 30_000;
/** A rewrite that took T waits at least this many times T before the next one. */
export const FILE_WRITE_SPACING = 10;

export interface FileWriteTimers {
  now(): number;
  setTimer(fn: () => void, ms: number): { cancel(): void };
}

export const realTimers: FileWriteTimers = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms);
    (t as { unref?: () => void }).unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

export class FileWriteThrottle {
  private timer: { cancel(): void } | null = null;
  private lastCostMs = 0;
  private lastEnd = -Infinity;

  constructor(
    private write: () => Promise<void>,
    private timers: FileWriteTimers = realTimers,
    private onError: (err: unknown) => void = () => {},
  ) {}

  /** A change happened: one rewrite will follow (changes until then share it). */
  changed(): void {
    if (this.timer) return;
    const spacing = Math.min(FILE_WRITE_MAX_DELAY_MS, this.lastCostMs * FILE_WRITE_SPACING);
    const wait = Math.max(FILE_WRITE_MIN_DELAY_MS, this.lastEnd + spacing - this.timers.now());
    this.timer = this.timers.setTimer(() => void this.run(), wait);
  }

  /** Drops a pending rewrite (a full write just happened, or the panel stops). */
  cancel(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private async run(): Promise<void> {
    this.timer = null;
    const start = this.timers.now();
    try {
      await this.write();
    } catch (err) {
      this.onError(err);
    } finally {
      this.lastEnd = this.timers.now();
      this.lastCostMs = this.lastEnd - start;
    }
  }
}
