// The `settings.clients` JSON text of recently read inbounds (inbounds/get). That array holds only client rows, which
// a traffic tick does not change, so a repeated read of a large inbound builds just `clientStats` (about half the
// work: 20,000 clients are a 5 MB array). Dropped by every event that can change what it holds: any client change,
// any inbound change, group changes, a database import, and a traffic tick when the inbound has a client whose
// delayed expiry (negative expiryTime) a first byte of traffic starts. A read that such a drop overtook is not kept.
// Like the paged list's catalog, writes from another process on the same database are not seen until a drop.

interface Entry {
  /** The projection the text was built for (protocol and flow eligibility). */
  shape: string;
  text: string;
  /** Some client of the inbound has a delayed expiry: a traffic tick can start it. */
  delayedStart: boolean;
}

export class ClientsTextCache {
  private entries = new Map<number, Entry>();
  private chars = 0;
  private generation = 0;

  /** @param maxChars the texts kept, in characters (least recently used dropped first). */
  constructor(private maxChars: number) {}

  /** Taken before a read; `put` keeps the read's text only if nothing was dropped since. */
  get mark(): number {
    return this.generation;
  }

  get(inboundId: number, shape: string): string | null {
    const e = this.entries.get(inboundId);
    if (!e || e.shape !== shape) return null;
    this.entries.delete(inboundId); // re-inserted: the Map's order is the order of use
    this.entries.set(inboundId, e);
    return e.text;
  }

  put(inboundId: number, shape: string, text: string, delayedStart: boolean, mark: number): void {
    if (mark !== this.generation || text.length > this.maxChars) return;
    this.remove(inboundId);
    this.entries.set(inboundId, { shape, text, delayedStart });
    this.chars += text.length;
    for (const [id] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.remove(id);
    }
  }

  dropAll(): void {
    this.generation++;
    this.entries.clear();
    this.chars = 0;
  }

  /** A traffic tick moved counters: texts that show a delayed expiry may now be stale. */
  trafficMoved(): void {
    this.generation++; // a read in flight may hold the expiry from before the tick
    for (const [id, e] of this.entries) if (e.delayedStart) this.remove(id);
  }

  private remove(inboundId: number): void {
    const e = this.entries.get(inboundId);
    if (!e) return;
    this.entries.delete(inboundId);
    this.chars -= e.text.length;
  }
}
