// The node pusher: bound inbounds are placed on their node through its inbound API (inbound-sync.ts), and after
// `clients.changed`, clients attached to inbounds bound to a node are pushed to that node through its own client
// API (/panel/api/clients/add|update|del|attach|detach, Bearer apiToken). A central traffic reset resets the
// node's counters too (through the puller, which owns the baselines).
//
// It is state-based, not event-replaying: an event only names emails; when a node's batch runs, each email's
// CURRENT local state is read and the remote is converged to it. A queued "add" that runs after the client was
// deleted therefore deletes it remotely instead of resurrecting it. Local inbounds map to the remote ones placed
// for them (node_inbounds); a remote inbound with the tag it would get (`<tag>` for the local `n<nodeId>-<tag>`) is
// adopted.
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
import type { NodeRecord } from './model.js';
import { RemoteError, RemotePanel, type RemoteClient } from './remote.js';
import { remoteTagOf, syncInbounds } from './inbound-sync.js';

export const MAX_PENDING = 50_000;
export const MAX_ATTEMPTS = 6;
/** Client API calls in flight per node during a batch. */
export const PUSH_CONCURRENCY = 4;
/** Batches with at least this many emails create new remote clients through bulkCreate, BULK_CHUNK at a time. */
export const BULK_THRESHOLD = 20;
export const BULK_CHUNK = 1000;
/** Batches of at most this many named emails read those clients one by one instead of the node's whole list. */
export const LIGHT_MAX = 16;

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

/** What a node's next run must do. */
interface Work {
  emails: Batch | null;
  /** Converge the node's inbounds ('all': push even unchanged ones). */
  inbounds: 'changed' | 'all' | null;
  /** Emails whose counters were reset here: reset them on the node. */
  resets: Batch | null;
}

/** Resets a node's counters of the emails and its baselines, under the node's pull lock (the puller does it). */
export interface NodeCounterReset {
  resetOnNode(node: NodeRecord, remote: RemotePanel, emails: string[]): Promise<void>;
}

/** clients.changed actions that zeroed counters here. */
const RESET_ACTIONS = new Set(['resetTraffic', 'bulkResetTraffic', 'resetAllTraffics', 'renewed']);
/** inbounds.changed actions that change what runs on a node. */
const INBOUND_ACTIONS = new Set(['add', 'update', 'del', 'enable', 'disable', 'import', 'depleted']);

interface NodeQueue {
  pending: Work | null;
  attempts: number;
  timer: ReturnType<typeof setTimeout> | null;
  running: Promise<void> | null;
  stats: NodePushStats;
}

/** The client fields a remote panel's client API accepts. */
export function clientPayload(c: ClientRecord): Record<string, unknown> {
  return {
    email: c.email,
    subId: c.subId,
    id: c.uuid,
    password: c.password,
    auth: c.auth,
    flow: c.flow,
    security: c.security,
    totalGB: c.totalGB,
    expiryTime: c.expiryTime,
    enable: c.enable,
    limitIp: c.limitIp,
    tgId: c.tgId,
    comment: c.comment,
    group: c.group,
    reverse: c.reverse,
    reset: c.reset,
  };
}

export class NodePusher {
  private queues = new Map<number, NodeQueue>();
  private unsubscribe: (() => void)[] = [];
  private stopped = false;
  /** clientsChanged calls still reading which nodes to route to. */
  private routing = 0;
  private readonly o: Required<Omit<PusherOptions, 'log'>> & Pick<PusherOptions, 'log'>;
  /**
   * `counters` (the puller) is how a central traffic reset reaches a node's counters; without it resets stay
   * central.
   */
  constructor(
    private store: Store,
    private http: HttpClient,
    opts: PusherOptions = {},
    private counters: NodeCounterReset | null = null,
  ) {
    this.o = {
      baseDelayMs: opts.baseDelayMs ?? 2000,
      maxDelayMs: opts.maxDelayMs ?? 60_000,
      coalesceMs: opts.coalesceMs ?? 100,
      maxAttempts: opts.maxAttempts ?? MAX_ATTEMPTS,
      maxPending: opts.maxPending ?? MAX_PENDING,
      log: opts.log,
    };
  }

  /**
   * Subscribes to clients.changed (push), inbounds.changed (place, update, remove inbounds) and nodes.changed (full
   * resync on enable, retarget and coming online; forget on delete).
   */
  attach(bus: EventBus): void {
    this.stopped = false;
    this.unsubscribe.push(
      bus.on('clients.changed', (e) => {
        void this.clientsChanged(e.emails, RESET_ACTIONS.has(e.action));
      }),
    );
    this.unsubscribe.push(
      bus.on('inbounds.changed', (e) => {
        if (INBOUND_ACTIONS.has(e.action)) void this.inboundsChanged(e.ids);
      }),
    );
    this.unsubscribe.push(
      bus.on('nodes.changed', (e) => {
        if (e.ids === 'all') return;
        for (const id of e.ids) {
          if (e.action === 'del') this.forget(id);
          else if (e.action === 'enable' || e.action === 'retarget' || e.action === 'online')
            this.enqueue(id, 'all', 'all');
        }
      }),
    );
  }

  /** Queues a full resync of every enabled node (the periodic reconcile). */
  async reconcile(): Promise<number> {
    const ids = (await this.store.nodes.list()).filter((n) => n.enable).map((n) => n.id);
    for (const id of ids) this.enqueue(id, 'all', 'all');
    return ids.length;
  }

  /** Stops subscriptions and timers; waits for batches in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    for (const q of this.queues.values())
      if (q.timer) {
        clearTimeout(q.timer);
        q.timer = null;
      }
    await Promise.all([...this.queues.values()].map((q) => q.running));
  }

  stats(): Record<number, NodePushStats> {
    const out: Record<number, NodePushStats> = {};
    for (const [id, q] of this.queues) {
      out[id] = { ...q.stats, pending: q.pending ? workSize(q.pending) : 0, attempts: q.attempts };
    }
    return out;
  }

  /** Resolves when no batch is running or waiting (retries included). For tests and graceful stops. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.queues.values()].filter((q) => q.running || q.timer || q.pending);
      if (busy.length === 0 && this.routing > 0) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      if (busy.length === 0 && this.routing === 0) return;
      await Promise.all(busy.map((q) => q.running));
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Routes changed emails to every node that has bound inbounds (a detach or delete must reach a node too). */
  async clientsChanged(emails: string[] | 'all', reset = false): Promise<void> {
    if (this.stopped) return;
    this.routing++;
    try {
      const nodeIds = await this.store.nodes.nodesWithInbounds();
      for (const id of nodeIds) {
        const batch = emails === 'all' ? 'all' : new Set(emails);
        this.enqueue(id, batch, null, reset ? (emails === 'all' ? 'all' : new Set(emails)) : null);
      }
    } catch (err) {
      this.o.log?.('node push: reading bound inbounds failed', { error: String(err) });
    } finally {
      this.routing--;
    }
  }

  /** Inbounds changed: the nodes they are bound to now or were placed on converge their inbounds. */
  async inboundsChanged(ids: number[] | 'all' = 'all'): Promise<void> {
    if (this.stopped) return;
    this.routing++;
    try {
      const wanted = ids === 'all' ? null : new Set(ids);
      for (const n of await this.store.nodes.list()) {
        if (wanted) {
          const [bound, placed] = await Promise.all([
            this.store.nodes.boundInbounds(n.id),
            this.store.nodeSync.placements(n.id),
          ]);
          if (!bound.some((b) => wanted.has(b.id)) && !placed.some((p) => wanted.has(p.inboundId))) continue;
        }
        this.enqueue(n.id, null, 'changed');
      }
    } catch (err) {
      this.o.log?.('node push: reading nodes failed', { error: String(err) });
    } finally {
      this.routing--;
    }
  }

  private queue(id: number): NodeQueue {
    let q = this.queues.get(id);
    if (!q) {
      q = {
        pending: null,
        attempts: 0,
        timer: null,
        running: null,
        stats: { pending: 0, attempts: 0, pushed: 0, dropped: 0, lastError: '' },
      };
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

  enqueue(id: number, batch: Batch | null, inbounds: Work['inbounds'] = null, resets: Batch | null = null): void {
    if (this.stopped) return;
    const q = this.queue(id);
    q.pending = mergeWork(q.pending, { emails: batch, inbounds, resets }, this.o.maxPending);
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
    let failed: Work | null = null;
    let error = '';
    try {
      const res = await this.sync(id, batch);
      failed = res.failed;
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
      const size = workSize(failed);
      const lost = size === 'all' ? 'all' : size;
      q.stats.dropped += size === 'all' ? 1 : size;
      q.attempts = 0;
      this.o.log?.('node push gave up', { nodeId: id, emails: lost, error });
      return;
    }
    q.pending = mergeWork(q.pending, failed, this.o.maxPending);
    const delay = Math.min(this.o.baseDelayMs * 2 ** (q.attempts - 1), this.o.maxDelayMs);
    this.o.log?.('node push failed; will retry', { nodeId: id, attempt: q.attempts, delayMs: delay, error });
    if (!this.stopped) {
      if (q.timer) clearTimeout(q.timer);
      this.schedule(id, q, delay);
    }
  }

  /**
   * Converges the node: its inbounds (when asked), counter resets, then the local state of the batch's emails.
   * Returns what failed (to retry). Throws when the node cannot be read at all.
   */
  private async sync(nodeId: number, work: Work): Promise<{ failed: Work | null; pushed: number; error: string }> {
    const node = await this.store.nodes.byId(nodeId);
    if (!node || !node.enable) return { failed: null, pushed: 0, error: '' }; // deleted or paused: nothing to do
    if (work.inbounds === 'changed' && !work.emails && !work.resets) {
      // Nothing bound and nothing placed: an inbound change elsewhere is none of this node's business.
      const [bound, placed] = await Promise.all([
        this.store.nodes.boundInbounds(nodeId),
        this.store.nodeSync.placements(nodeId),
      ]);
      if (bound.length === 0 && placed.length === 0) return { failed: null, pushed: 0, error: '' };
    }
    const remote = new RemotePanel(this.http, node);
    const light = await this.lightRead(nodeId, remote, work);
    const [remoteInbounds, remoteClients] = light
      ? [[], light.clients]
      : await Promise.all([remote.inbounds(), remote.clients()]);
    let pushed = 0;
    const errors: string[] = [];
    const failed: Work = { emails: null, inbounds: null, resets: null };
    let emailsBatch = work.emails;

    let map: Map<number, number> | null = light?.map ?? null;
    let inbounds = work.inbounds;
    if (!inbounds && !light) {
      const [bound, placements] = await Promise.all([
        this.store.nodes.boundInbounds(nodeId),
        this.store.nodeSync.placements(nodeId),
      ]);
      const ids = new Set(remoteInbounds.map((i) => i.id));
      map = new Map(placements.filter((p) => ids.has(p.remoteId)).map((p) => [p.inboundId, p.remoteId]));
      // A bound inbound not (or no longer) on the node: place it first (an earlier attempt failed, or it was removed
      // there).
      if (bound.some((b) => !map!.has(b.id))) inbounds = 'changed';
    }
    if (inbounds) {
      const r = await syncInbounds(this.store, remote, nodeId, remoteInbounds, remoteClients, inbounds === 'all');
      pushed += r.created + r.updated + r.deleted;
      if (r.errors.length) {
        failed.inbounds = inbounds;
        errors.push(...r.errors);
      }
      map = r.map;
      // A remote inbound placed just now is empty: its clients follow in this run.
      if (r.placed.length && emailsBatch !== 'all') {
        const add = new Set(emailsBatch ?? []);
        for (const row of await this.store.inbounds.attachedClients(r.placed)) add.add(row.client.email);
        emailsBatch = add.size > this.o.maxPending ? 'all' : add;
      }
      for (const e of r.orphansDeleted) {
        const i = remoteClients.findIndex((c) => c.email === e);
        if (i >= 0) remoteClients.splice(i, 1);
      }
    }

    if (work.resets && this.counters) {
      const onNode = new Set(remoteClients.map((c) => c.email));
      const emails = (work.resets === 'all' ? await this.store.nodes.emailsOnNode(nodeId) : [...work.resets]).filter(
        (e) => onNode.has(e),
      );
      try {
        if (emails.length) await this.counters.resetOnNode(node, remote, emails);
      } catch (err) {
        failed.resets = work.resets;
        errors.push(`traffic reset of ${emails.length} client(s): ${err instanceof Error ? err.message : String(err)}`);
      }
    }

    if (emailsBatch) {
      const res = await this.syncClients(nodeId, emailsBatch, remote, remoteInbounds, remoteClients, map ?? new Map());
      pushed += res.pushed;
      if (res.failed.size) {
        failed.emails = res.failed;
        errors.push(res.error);
      }
    }
    const any = failed.emails || failed.inbounds || failed.resets;
    return { failed: any ? failed : null, pushed, error: errors.join('; ').slice(0, 2000) };
  }

  /**
   * A few named emails and nothing else to do, with every bound inbound placed and still on the node: read just
   * those clients and the node's inbound ids, not the node's whole client list (megabytes on a big node).
   * Null when the full read is needed.
   */
  private async lightRead(
    nodeId: number,
    remote: RemotePanel,
    work: Work,
  ): Promise<{ clients: RemoteClient[]; map: Map<number, number> } | null> {
    if (work.inbounds || work.resets || !work.emails || work.emails === 'all' || work.emails.size > LIGHT_MAX)
      return null;
    const [bound, placements] = await Promise.all([
      this.store.nodes.boundInbounds(nodeId),
      this.store.nodeSync.placements(nodeId),
    ]);
    const ids = await remote.inboundIds();
    const map = new Map(placements.filter((p) => ids.has(p.remoteId)).map((p) => [p.inboundId, p.remoteId]));
    if (bound.some((b) => !map.has(b.id))) return null;
    const clients: RemoteClient[] = [];
    for (const email of work.emails) {
      const c = await remote.client(email);
      if (c) clients.push(c);
    }
    return { clients, map };
  }

  /** Converges the node to the local state of the batch's emails. */
  private async syncClients(
    nodeId: number,
    batch: Batch,
    remote: RemotePanel,
    remoteInbounds: { id: number; tag: string }[],
    remoteClients: RemoteClient[],
    placed: Map<number, number>,
  ): Promise<{ failed: Set<string>; pushed: number; error: string }> {
    const failed = new Set<string>();
    const bound = await this.store.nodes.boundInbounds(nodeId);
    const byTag = new Map(remoteInbounds.map((i) => [i.tag, i.id]));
    // The remote inbound placed for a local one; without a placement, the remote inbound with its tag.
    const mapInbound = (ib: { id: number; tag: string }): number | undefined =>
      placed.get(ib.id) ?? byTag.get(ib.tag) ?? byTag.get(remoteTagOf(nodeId, ib.tag));
    const managed = new Set(bound.map(mapInbound).filter((x): x is number => x !== undefined));
    const remoteByEmail = new Map(remoteClients.map((c) => [c.email, c]));

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
        const rc = remoteByEmail.get(email);
        const rIds = rc?.inboundIds;
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
          const rid = mapInbound(ib);
          if (rid === undefined)
            throw new RemoteError(
              `inbound '${ib.tag}' (id ${ib.id}) is not on the node yet (no remote inbound tagged '${remoteTagOf(nodeId, ib.tag)}')`,
            );
          desired.push(rid);
        }
        const payload = clientPayload(st.client);
        if (!rc) {
          if (bulk) {
            creates.push({ email, client: payload, inboundIds: desired });
            return;
          }
          await remote.add(payload, desired);
        } else {
          const missing = desired.filter((i) => !rc.inboundIds.includes(i));
          const extra = rManaged.filter((i) => !desired.includes(i));
          // reconcile: already equal
          if (!named && missing.length === 0 && extra.length === 0 && samePayload(payload, rc.fields)) return;
          await remote.update(email, payload);
          if (missing.length) await remote.attach(email, missing);
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
    const worker = async () => {
      while (next < emails.length) await one(emails[next++]!);
    };
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

/** The node's copy already carries every pushed field (the node's own view of it: `id` is its uuid). */
function samePayload(payload: Record<string, unknown>, remote: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(payload)) {
    const r = k === 'id' ? (remote.uuid ?? remote.id) : remote[k];
    if (JSON.stringify(v ?? null) !== JSON.stringify(r ?? (v === '' ? '' : null))) return false;
  }
  return true;
}

function merge(a: Batch | null, b: Batch | null, cap: number): Batch | null {
  if (!b) return a;
  if (a === 'all' || b === 'all') return 'all';
  if (!a) return b.size > cap ? 'all' : new Set(b);
  for (const e of b) a.add(e);
  return a.size > cap ? 'all' : a;
}

function mergeWork(a: Work | null, b: Work, cap: number): Work {
  if (!a) a = { emails: null, inbounds: null, resets: null };
  a.emails = merge(a.emails, b.emails, cap);
  a.resets = merge(a.resets, b.resets, cap);
  a.inbounds = a.inbounds === 'all' || b.inbounds === 'all' ? 'all' : (a.inbounds ?? b.inbounds);
  return a;
}

function workSize(w: Work): number | 'all' {
  if (w.emails === 'all' || w.inbounds === 'all' || w.resets === 'all') return 'all';
  return (w.emails?.size ?? 0) + (w.resets?.size ?? 0) + (w.inbounds ? 1 : 0);
}
