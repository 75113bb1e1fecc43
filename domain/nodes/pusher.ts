// The node pusher: after `clients.changed`, clients attached to inbounds bound to a node are pushed to that node
// through its own client API (/panel/api/clients/add|update|del|attach|detach, Bearer apiToken).
//
// It is state-based, not event-replaying: an event only names emails; when a node's batch runs, each email's
// CURRENT local state is read and the remote is converged to it. A queued "add" that runs after the client was
// deleted therefore deletes it remotely instead of resurrecting it. Local inbounds map to remote ones by tag
// (a local node inbound is tagged `n<nodeId>-<tag>`; the node knows it as `<tag>`).
//
// Queue bounds: per node at most MAX_PENDING emails (beyond that the batch collapses to "everything on the node");
// a failing batch is retried with exponential backoff up to MAX_ATTEMPTS times, then dropped with the error kept
// in stats(). A disabled node is skipped; enabling it (nodes.changed `enable`) queues a full resync.
// Remote clients missing locally are deleted only when the event named them (deleted or renamed here) or when the
// email is tombstoned; a full resync never deletes a remote-only client that this panel never had.
import type { Store } from '../ports/store.js';
import type { HttpClient } from '../ports/http.js';
import type { EventBus } from '../shared/events.js';
import type { ClientRecord } from '../clients/model.js';
import { RemoteError, RemotePanel } from './remote.js';

export const MAX_PENDING = 50_000;
export const MAX_ATTEMPTS = 6;
/** Client API calls in flight per node during a batch. */
export const PUSH_CONCURRENCY = 4;
/** Batches with at least this many emails create new remote clients through bulkCreate, BULK_CHUNK at a time. */
export const BULK_THRESHOLD = 20;
export const BULK_CHUNK = 1000;

export interface PusherOptions {
  /** First retry delay; doubles per attempt up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Delay before a batch starts, so bursts of events coalesce. */
  coalesceMs?: number;
  maxAttempts?: number;
  maxPending?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface NodePushStats {
  pending: number | 'all';
  attempts: number;
  pushed: number;
  dropped: number;
  lastError: string;
}

type Batch = Set<string> | 'all';

interface NodeQueue {
  pending: Batch | null;
  attempts: number;
  timer: ReturnType<typeof setTimeout> | null;
  running: Promise<void> | null;
  stats: NodePushStats;
}

/** The client fields a remote panel's client API accepts. */
export function clientPayload(c: ClientRecord): Record<string, unknown> {
  return {
    email: c.email, subId: c.subId, id: c.uuid, password: c.password, auth: c.auth, flow: c.flow, security: c.security,
    totalGB: c.totalGB, expiryTime: c.expiryTime, enable: c.enable, limitIp: c.limitIp, tgId: c.tgId, comment: c.comment,
    group: c.group, reverse: c.reverse, reset: c.reset,
  };
}

export class NodePusher {
  private queues = new Map<number, NodeQueue>();
  private unsubscribe: (() => void)[] = [];
  private stopped = false;
  /** clientsChanged calls still reading which nodes to route to. */
  private routing = 0;
  private readonly o: Required<Omit<PusherOptions, 'log'>> & Pick<PusherOptions, 'log'>;

  constructor(private store: Store, private http: HttpClient, opts: PusherOptions = {}) {
    this.o = {
      baseDelayMs: opts.baseDelayMs ?? 2000,
      maxDelayMs: opts.maxDelayMs ?? 60_000,
      coalesceMs: opts.coalesceMs ?? 100,
      maxAttempts: opts.maxAttempts ?? MAX_ATTEMPTS,
      maxPending: opts.maxPending ?? MAX_PENDING,
      log: opts.log,
    };
  }

  /** Subscribes to clients.changed (push) and nodes.changed (resync on enable/retarget, forget on delete). */
  attach(bus: EventBus): void {
    this.stopped = false;
    this.unsubscribe.push(bus.on('clients.changed', (e) => { void this.clientsChanged(e.emails); }));
    this.unsubscribe.push(bus.on('nodes.changed', (e) => {
      if (e.ids === 'all') return;
      for (const id of e.ids) {
        if (e.action === 'del') this.forget(id);
        else if (e.action === 'enable' || e.action === 'retarget') this.enqueue(id, 'all');
      }
    }));
  }

  /** Stops subscriptions and timers; waits for batches in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    for (const q of this.queues.values()) if (q.timer) { clearTimeout(q.timer); q.timer = null; }
    await Promise.all([...this.queues.values()].map((q) => q.running));
  }

  stats(): Record<number, NodePushStats> {
    const out: Record<number, NodePushStats> = {};
    for (const [id, q] of this.queues) {
      out[id] = { ...q.stats, pending: q.pending === 'all' ? 'all' : q.pending?.size ?? 0, attempts: q.attempts };
    }
    return out;
  }

  /** Resolves when no batch is running or waiting (retries included). For tests and graceful stops. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.queues.values()].filter((q) => q.running || q.timer || q.pending);
      if (busy.length === 0 && this.routing === 0) return;
      await Promise.all(busy.map((q) => q.running));
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Routes changed emails to every node that has bound inbounds (a detach or delete must reach a node too). */
  async clientsChanged(emails: string[] | 'all'): Promise<void> {
    if (this.stopped) return;
    this.routing++;
    try {
      const nodeIds = await this.store.nodes.nodesWithInbounds();
      for (const id of nodeIds) this.enqueue(id, emails === 'all' ? 'all' : new Set(emails));
    } catch (err) {
      this.o.log?.('node push: reading bound inbounds failed', { error: String(err) });
    } finally {
      this.routing--;
    }
  }

  private queue(id: number): NodeQueue {
    let q = this.queues.get(id);
    if (!q) {
      q = { pending: null, attempts: 0, timer: null, running: null, stats: { pending: 0, attempts: 0, pushed: 0, dropped: 0, lastError: '' } };
      this.queues.set(id, q);
    }
    return q;
  }

  private forget(id: number): void {
    const q = this.queues.get(id);
    if (!q) return;
    if (q.timer) clearTimeout(q.timer);
    q.timer = null;
    q.pending = null;
    if (!q.running) this.queues.delete(id);
  }

  enqueue(id: number, batch: Batch): void {
    if (this.stopped) return;
    const q = this.queue(id);
    q.pending = merge(q.pending, batch, this.o.maxPending);
    if (!q.running && !q.timer) this.schedule(id, q, this.o.coalesceMs);
  }

  private schedule(id: number, q: NodeQueue, ms: number): void {
    q.timer = setTimeout(() => {
      q.timer = null;
      q.running = this.run(id, q).finally(() => {
        q.running = null;
        if (q.pending && !q.timer && !this.stopped) this.schedule(id, q, this.o.coalesceMs);
      });
    }, ms);
    (q.timer as { unref?: () => void }).unref?.();
  }

  private async run(id: number, q: NodeQueue): Promise<void> {
    const batch = q.pending;
    q.pending = null;
    if (!batch || this.stopped) return;
    let failed: Batch | null = null;
    let error = '';
    try {
      const res = await this.sync(id, batch);
      failed = res.failed.size ? res.failed : null;
      error = res.error;
      q.stats.pushed += res.pushed;
    } catch (err) {
      failed = batch;
      error = err instanceof Error ? err.message : String(err);
    }
    if (!failed) {
      q.attempts = 0;
      if (!q.pending) q.stats.lastError = '';
      return;
    }
    q.attempts++;
    q.stats.lastError = error;
    if (q.attempts >= this.o.maxAttempts) {
      const lost = failed === 'all' ? 'all' : failed.size;
      q.stats.dropped += failed === 'all' ? 1 : failed.size;
      q.attempts = 0;
      this.o.log?.('node push gave up', { nodeId: id, emails: lost, error });
      return;
    }
    q.pending = merge(q.pending, failed, this.o.maxPending);
    const delay = Math.min(this.o.baseDelayMs * 2 ** (q.attempts - 1), this.o.maxDelayMs);
    this.o.log?.('node push failed; will retry', { nodeId: id, attempt: q.attempts, delayMs: delay, error });
    if (!this.stopped) {
      if (q.timer) clearTimeout(q.timer);
      this.schedule(id, q, delay);
    }
  }

  /** Converges the node to the local state of the batch's emails. Throws when the node cannot be read at all. */
  private async sync(nodeId: number, batch: Batch): Promise<{ failed: Set<string>; pushed: number; error: string }> {
    const failed = new Set<string>();
    const node = await this.store.nodes.byId(nodeId);
    if (!node || !node.enable) return { failed, pushed: 0, error: '' }; // deleted or paused: nothing to do
    const remote = new RemotePanel(this.http, node);
    const [bound, remoteInbounds, remoteClients] = await Promise.all([
      this.store.nodes.boundInbounds(nodeId),
      remote.inbounds(),
      remote.clients(),
    ]);
    const byTag = new Map(remoteInbounds.map((i) => [i.tag, i.id]));
    const prefix = `n${nodeId}-`;
    const mapTag = (tag: string): number | undefined => byTag.get(tag) ?? (tag.startsWith(prefix) ? byTag.get(tag.slice(prefix.length)) : undefined);
    const managed = new Set(bound.map((b) => mapTag(b.tag)).filter((x): x is number => x !== undefined));
    const remoteByEmail = new Map(remoteClients.map((c) => [c.email, c.inboundIds]));

    let emails: string[];
    const named = batch !== 'all';
    if (batch === 'all') {
      const local = await this.store.nodes.emailsOnNode(nodeId);
      const remoteManaged = remoteClients.filter((c) => c.inboundIds.some((i) => managed.has(i))).map((c) => c.email);
      emails = [...new Set([...local, ...remoteManaged])];
    } else {
      emails = [...batch];
    }
    const states = await this.store.nodes.clientStates(nodeId, emails);
    const tomb = await this.store.nodes.tombstoned(emails.filter((e) => !states.has(e)));

    let pushed = 0;
    let error = '';
    // New clients of a big batch go in bulkCreate requests (one remote transaction each) instead of one add each.
    const bulk = emails.length >= BULK_THRESHOLD;
    const creates: { email: string; client: Record<string, unknown>; inboundIds: number[] }[] = [];
    const one = async (email: string): Promise<void> => {
      try {
        const st = states.get(email);
        const rIds = remoteByEmail.get(email);
        const rManaged = rIds ? rIds.filter((i) => managed.has(i)) : [];
        if (!st || st.inbounds.length === 0) {
          if (!rIds || rManaged.length === 0) return;
          // Not on this node any more (deleted, renamed, detached). Remove it from the node's inbounds we manage;
          // a client that only ever lived on the node is left alone unless we know it was deleted here.
          if (!st && !named && !tomb.has(email)) return;
          if (rIds.every((i) => managed.has(i))) await remote.del(email);
          else await remote.detach(email, rManaged);
          pushed++;
          return;
        }
        const desired: number[] = [];
        for (const ib of st.inbounds) {
          const rid = mapTag(ib.tag);
          if (rid === undefined) throw new RemoteError(`inbound '${ib.tag}' (id ${ib.id}) has no counterpart on the node (no remote inbound tagged '${ib.tag.startsWith(prefix) ? ib.tag.slice(prefix.length) : ib.tag}')`);
          desired.push(rid);
        }
        const payload = clientPayload(st.client);
        if (!rIds) {
          if (bulk) {
            creates.push({ email, client: payload, inboundIds: desired });
            return;
          }
          await remote.add(payload, desired);
        } else {
          await remote.update(email, payload);
          const missing = desired.filter((i) => !rIds.includes(i));
          if (missing.length) await remote.attach(email, missing);
          const extra = rManaged.filter((i) => !desired.includes(i));
          if (extra.length) await remote.detach(email, extra);
        }
        pushed++;
      } catch (err) {
        failed.add(email);
        error = `${email}: ${err instanceof Error ? err.message : String(err)}`;
      }
    };
    // A few requests in flight per node; each email's calls stay in order.
    let next = 0;
    const worker = async () => { while (next < emails.length) await one(emails[next++]!); };
    await Promise.all(Array.from({ length: Math.min(PUSH_CONCURRENCY, emails.length) }, worker));
    for (let i = 0; i < creates.length; i += BULK_CHUNK) {
      const part = creates.slice(i, i + BULK_CHUNK);
      try {
        const res = await remote.bulkCreate(part.map((p) => ({ client: p.client, inboundIds: p.inboundIds })));
        const skipped = new Map(res.skipped.map((x) => [x.email, x.reason]));
        for (const p of part) {
          const reason = skipped.get(p.email);
          if (reason === undefined) pushed++;
          else {
            failed.add(p.email);
            error = `${p.email}: the node refused it: ${reason}`;
          }
        }
      } catch (err) {
        for (const p of part) failed.add(p.email);
        error = `bulkCreate of ${part.length} clients: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    return { failed, pushed, error };
  }
}

function merge(a: Batch | null, b: Batch, cap: number): Batch {
  if (a === 'all' || b === 'all') return 'all';
  if (!a) return b.size > cap ? 'all' : new Set(b);
  for (const e of b) a.add(e);
  return a.size > cap ? 'all' : a;
}
