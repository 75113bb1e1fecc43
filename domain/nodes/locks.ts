// One lock per node shared by the puller and the pusher: a pull (read the node's counters, move the baselines)
// and a counter reset on the node (reset there, zero the baselines) must never interleave, or the bytes read
// before the reset would be counted again against the zeroed baseline.
export class NodeLocks {
  private tails = new Map<number, Promise<void>>();

  async run<T>(nodeId: number, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(nodeId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(nodeId, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(nodeId) === tail) this.tails.delete(nodeId);
    }
  }
}
