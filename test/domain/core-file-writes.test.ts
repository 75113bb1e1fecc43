// When the core config file is rewritten after live changes (domain/core/file-writes.ts).
import { describe, expect, it } from 'vitest';
import {
  FILE_WRITE_MAX_DELAY_MS,
  FILE_WRITE_MIN_DELAY_MS,
  FILE_WRITE_SPACING,
  FileWriteThrottle,
  type FileWriteTimers,
} from '../../domain/core/file-writes.js';

/** Manual time: timers fire only when the test moves the clock. */
class ManualTimers implements FileWriteTimers {
  t = 0;
  private timers: { at: number; fn: () => void; live: boolean }[] = [];
  now() {
    return this.t;
  }
  setTimer(fn: () => void, ms: number) {
    const timer = { at: this.t + ms, fn, live: true };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.live = false;
      },
    };
  }
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.live && x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.t = next.at;
      next.live = false;
      next.fn();
      await new Promise((r) => setTimeout(r, 0)); // let the write run
    }
    this.t = Math.max(this.t, end); // a rewrite may have taken longer
  }
}

describe('core config file rewrites', () => {
  const setup = (costMs: number) => {
    const timers = new ManualTimers();
    const writes: number[] = [];
    const throttle = new FileWriteThrottle(async () => {
      writes.push(timers.t);
      timers.t += costMs; // the rewrite takes this long
    }, timers);
    return { timers, writes, throttle };
  };

  it('one rewrite a moment after a burst of changes', async () => {
    const { timers, writes, throttle } = setup(5);
    throttle.changed();
    await timers.advance(500);
    throttle.changed();
    throttle.changed();
    await timers.advance(FILE_WRITE_MIN_DELAY_MS);
    expect(writes).toEqual([FILE_WRITE_MIN_DELAY_MS]);
  });

  it('a costly rewrite spaces out the next one (a tenth of the time at most), up to the maximum delay', async () => {
    const { timers, writes, throttle } = setup(400); // ~100,000 clients
    throttle.changed();
    await timers.advance(FILE_WRITE_MIN_DELAY_MS);
    expect(writes).toEqual([1000]);
    throttle.changed(); // at 1400, right after the write ended
    await timers.advance(3000);
    expect(writes).toHaveLength(1);
    await timers.advance(2000);
    expect(writes).toEqual([1000, 1400 + 400 * FILE_WRITE_SPACING]);
    const slow = setup(60_000);
    slow.throttle.changed();
    await slow.timers.advance(FILE_WRITE_MIN_DELAY_MS);
    slow.throttle.changed();
    await slow.timers.advance(FILE_WRITE_MAX_DELAY_MS);
    expect(slow.writes).toEqual([1000, 61_000 + FILE_WRITE_MAX_DELAY_MS]);
  });

  it('cancel drops the pending rewrite; a failed rewrite is reported and the next change schedules again', async () => {
    const timers = new ManualTimers();
    const errors: unknown[] = [];
    let fail = true;
    let writes = 0;
    const throttle = new FileWriteThrottle(
      async () => {
        writes++;
        if (fail) throw new Error('disk full');
      },
      timers,
      (err) => errors.push(err),
    );
    throttle.changed();
    throttle.cancel();
    await timers.advance(5000);
    expect(writes).toBe(0);
    throttle.changed();
    await timers.advance(FILE_WRITE_MIN_DELAY_MS);
    expect(String(errors[0])).toMatch(/disk full/);
    fail = false;
    throttle.changed();
    await timers.advance(FILE_WRITE_MIN_DELAY_MS);
    expect(writes).toBe(2);
  });
});
