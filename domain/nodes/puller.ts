// The node puller: what the nodes' cores counted comes back. At least every PULL_INTERVAL_MS, for every enabled
// node that is online (a few at a time, each under a deadline): the node's per-client counters, online emails,
// last-online times and recent IPs of the clients this panel put on it. Counters are cumulative on the node; the
// central counter grows by `current - baseline` per (node, email), the baseline stored and moved in the same
// transaction (storage: nodeSync.applyCounters), so no byte counts twice across central restarts, node restarts
// or failed pulls, and a counter that went backwards (node reset) counts from zero. The moved clients then get
// the same quota check and events as a local traffic tick (TrafficService.applied).
import type { Store } from '../ports/store.js';
import type { HttpClient } from '../ports/http.js';
import type { Clock } from '../shared/clock.js';
import type { CounterMove } from '../clients/catalog.js';
import type { AccessObservation } from '../traffic/ip-limit.js';
import type { NodeRecord } from './model.js';
import { RemotePanel } from './remote.js';
import type { NodeLocks } from './locks.js';
import type { NodeCounterReset } from './pusher.js';

export const PULL_INTERVAL_MS = 10_000;
/** A full reconcile of every enabled node this often (besides enable, retarget and coming back online). */
export const RECONCILE_INTERVAL_MS = 300_000;
export const PULL_CONCURRENCY = 4;
/** A node that has not answered within this is skipped for this round (nothing applied, baselines unchanged). */
export const PULL_DEADLINE_MS = 8_000;
/** IPs read per node per pull (one call each), for clients online there. */
export const IPS_PER_PULL = 50;
const RESET_CHUNK = 1000;

export interface PullTraffic {
  applied(clients: CounterMove[], atMs: number): Promise<unknown>;
}

export interface NodePullResult {
  nodes: number;
  moved: number;
  errors: { nodeId: number; error: string }[];
}

class Deadline extends Error {}

/** "1.2.3.4 (2026-11-22 12:00:00 UTC)" or a bare IP → {ip, seconds} (seconds 0 when no time). */
export function parseIpEntry(s: string): { ip: string; t: number } | null {
  const m = /^\s*([0-9A-Fa-f:.]+)(?:\s*\((\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\s*UTC)?\))?\s*$/.exec(s);
  if (!m) return null;
  const t = m[2] ? Math.floor(Date.parse(`${m[2]}T${m[3]}Z`) / 1000) : 0;
  return { ip: m[1]!, t: Number.isFinite(t) ? t : 0 };
}

export class NodePuller implements NodeCounterReset {
  private onlineByNode = new Map<number, string[]>();
  private running: Promise<NodePullResult> | null = null;

  constructor(
    private store: Store,
    private http: HttpClient,
    private clock: Clock,
    private locks: NodeLocks,
    private traffic: PullTraffic,
    private opts: { deadlineMs?: number; log?: (msg: string, fields?: Record<string, unknown>) => void } = {},
  ) {}

  /** Emails online on any node at the last pull. */
  onlines(): string[] {
    const out = new Set<string>();
    for (const list of this.onlineByNode.values()) for (const e of list) out.add(e);
    return [...out];
  }

  /** One round over every enabled, online node. Overlapping calls share one run. */
  pull(): Promise<NodePullResult> {
    if (!this.running)
      this.running = this.runPull().finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async runPull(): Promise<NodePullResult> {
    const targets = (await this.store.nodes.list()).filter((n) => n.enable && n.status === 'online');
    // A node not pulled this round (paused, offline, deleted) has no clients online as far as we know.
    for (const id of this.onlineByNode.keys()) if (!targets.some((n) => n.id === id)) this.onlineByNode.delete(id);
    const result: NodePullResult = { nodes: targets.length, moved: 0, errors: [] };
    const moves: CounterMove[] = [];
    const at = this.clock.now();
    let next = 0;
    const worker = async () => {
      while (next < targets.length) {
        const n = targets[next++]!;
        try {
          const m = await this.locks.run(n.id, () => this.pullNode(n, at));
          moves.push(...m);
        } catch (err) {
          // Offline for this round: keep its onlines out, keep its baselines (the next pull counts the gap).
          this.onlineByNode.delete(n.id);
          result.errors.push({ nodeId: n.id, error: err instanceof Error ? err.message : String(err) });
          this.opts.log?.('node pull failed', { nodeId: n.id, error: String(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PULL_CONCURRENCY, targets.length) }, worker));
    result.moved = moves.length;
    // No node pulled: nothing to announce (a panel without nodes sends no empty ticks).
    if (targets.length > 0) await this.traffic.applied(mergeMoves(moves), at);
    return result;
  }

  /** Reads one node and applies its counters; the caller holds the node's lock. */
  private async pullNode(n: NodeRecord, at: number): Promise<CounterMove[]> {
    const remote = new RemotePanel(this.http, n);
    let late = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new Deadline(`no answer within ${this.opts.deadlineMs ?? PULL_DEADLINE_MS} ms`));
      }, this.opts.deadlineMs ?? PULL_DEADLINE_MS);
      (timer as { unref?: () => void }).unref?.();
    });
    try {
      const [clients, onlines, onNode] = await Promise.race([
        Promise.all([remote.clients(), remote.onlines(), this.store.nodes.emailsOnNode(n.id)]),
        deadline,
      ]);
      if (late) throw new Deadline('late answer ignored');
      const mine = new Set(onNode);
      const counters = clients
        .filter((c) => mine.has(c.email))
        .map((c) => ({ email: c.email, up: c.up, down: c.down }));
      const nowSec = Math.floor(at / 1000);
      const online = onlines.filter((e) => mine.has(e));
      const lastOnline = new Map<string, number>();
      for (const c of clients) if (mine.has(c.email) && c.lastOnline > 0) lastOnline.set(c.email, c.lastOnline);
      for (const e of online) lastOnline.set(e, nowSec);
      const moved = await this.store.nodeSync.applyCounters(n.id, counters, lastOnline, at);
      this.onlineByNode.set(n.id, online);
      await this.pullIps(remote, online, nowSec).catch((err) =>
        this.opts.log?.('node IPs not read', { nodeId: n.id, error: String(err) }),
      );
      return moved;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Recent IPs of clients online on the node (what the node's own access log recorded within the last minutes). */
  private async pullIps(remote: RemotePanel, online: string[], nowSec: number): Promise<void> {
    const seen: AccessObservation[] = [];
    for (const email of online.slice(0, IPS_PER_PULL)) {
      for (const entry of await remote.ips(email)) {
        const p = parseIpEntry(entry);
        if (p && (p.t === 0 || p.t >= nowSec - 300)) seen.push({ email, ip: p.ip });
      }
    }
    if (seen.length) await this.store.traffic.recordIps(seen, nowSec);
  }

  /**
   * A traffic reset here reaches the node: under the node's lock, its counters are first pulled (bytes moved since
   * the last pull still count), then reset there, then the baselines zeroed.
   */
  async resetOnNode(node: NodeRecord, remote: RemotePanel, emails: string[]): Promise<void> {
    const at = this.clock.now();
    const moves = await this.locks.run(node.id, async () => {
      let m: CounterMove[] = [];
      try {
        m = await this.pullNode(node, at);
      } catch (err) {
        this.opts.log?.('node pull before a reset failed', { nodeId: node.id, error: String(err) });
      }
      for (let i = 0; i < emails.length; i += RESET_CHUNK) {
        const part = emails.slice(i, i + RESET_CHUNK);
        await remote.bulkResetTraffic(part);
        await this.store.nodeSync.resetBaselines(node.id, part);
      }
      return m;
    });
    if (moves.length) await this.traffic.applied(moves, at);
  }
}

function mergeMoves(moves: CounterMove[]): CounterMove[] {
  const by = new Map<string, CounterMove>();
  for (const m of moves) {
    const o = by.get(m.email);
    if (o) {
      o.up += m.up;
      o.down += m.down;
    } else by.set(m.email, { ...m });
  }
  return [...by.values()];
}
