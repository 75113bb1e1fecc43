// The WebSocket push hub, transport-free: it is fed by the typed domain events and writes JSON text to
// whatever sockets the adapter hands it (tests use fake sockets). Messages follow the spec's Events table:
//   {type:'status', data: snapshot}            every sample (2 s)
//   {type:'coreState', data: state[, error]}    on core.state
//   {type:'notification', title, body, severity}
//   {type:'invalidate', resource}               clients/inbounds/groups/settings/tokens/nodes, bursts merged
//   {type:'traffic', data: {inbounds, outbounds, onlines}} and {type:'client_stats', data: {clients}}
//                                                after a traffic tick, only counters that moved
// A slow or dead client never blocks the others: every send first checks the socket's buffered bytes and drops
// the connection past the bound; ping/pong finds dead peers; close() ends every connection with 1001.
import type { DomainEvents, EventBus } from '../shared/events.js';

export interface PushSocket {
  send(text: string): void;
  /** Bytes queued on this connection and not yet written to the network. */
  bufferedAmount(): number;
  ping(): void;
  close(code: number, reason: string): void;
  /** Drops the connection at once (no close handshake). */
  terminate(): void;
}

export interface PushConnection {
  /** The peer answered a ping (or sent anything). */
  alive(): void;
  /** The transport closed; forget the socket. */
  closed(): void;
}

export interface HubOptions {
  /** Past this many buffered bytes a connection is dropped. */
  maxBufferedBytes?: number;
  /** At most one invalidate per resource per this many ms. */
  mergeMs?: number;
  /** Ping interval; a peer that did not answer the previous ping by the next one is dropped. */
  pingMs?: number;
  /** Timer functions (tests may pass fakes; defaults are the global ones). */
  timers?: {
    setTimeout(fn: () => void, ms: number): unknown;
    clearTimeout(h: unknown): void;
    setInterval(fn: () => void, ms: number): unknown;
    clearInterval(h: unknown): void;
  };
  onDrop?(reason: string): void;
}

export const INVALIDATE_RESOURCES = ['clients', 'inbounds', 'groups', 'settings', 'tokens', 'nodes'] as const;
export type InvalidateResource = (typeof INVALIDATE_RESOURCES)[number];

interface Conn {
  socket: PushSocket;
  alive: boolean;
}

const unref = (h: unknown): void => (h as { unref?: () => void } | null)?.unref?.();

export class PushHub {
  private conns = new Set<Conn>();
  private pending = new Map<InvalidateResource, unknown>();
  private lastStatus: string | null = null;
  private lastOnlines = '';
  private pinger: unknown = null;
  private unsubscribe: (() => void)[] = [];
  private readonly maxBuffered: number;
  private readonly mergeMs: number;
  private readonly pingMs: number;
  private readonly timers: NonNullable<HubOptions['timers']>;
  /** Counters for tests, the benchmark and debugging. */
  readonly stats = { sent: 0, dropped: 0, messages: 0 };

  constructor(private opts: HubOptions = {}) {
    this.maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024;
    this.mergeMs = opts.mergeMs ?? 250;
    this.pingMs = opts.pingMs ?? 30_000;
    this.timers = opts.timers ?? {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      setInterval: (fn, ms) => setInterval(fn, ms),
      clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
    };
  }

  get size(): number {
    return this.conns.size;
  }

  /** Subscribes to the domain events that feed the hub. */
  attach(events: EventBus): void {
    const on = <K extends keyof DomainEvents>(name: K, fn: (p: DomainEvents[K]) => void) =>
      this.unsubscribe.push(events.on(name, fn));
    on('status.sampled', (s) => this.status(s));
    on('core.state', (e) =>
      this.broadcast(
        e.error ? { type: 'coreState', data: e.state, error: e.error } : { type: 'coreState', data: e.state },
      ),
    );
    on('notification', (n) =>
      this.broadcast({ type: 'notification', title: n.title, body: n.body, severity: n.severity }),
    );
    on('clients.changed', () => this.invalidate('clients'));
    on('inbounds.changed', () => this.invalidate('inbounds'));
    on('groups.changed', () => this.invalidate('groups'));
    on('settings.changed', () => this.invalidate('settings'));
    on('tokens.changed', () => this.invalidate('tokens'));
    on('nodes.changed', () => this.invalidate('nodes'));
    on('traffic.tick', (t) => this.traffic(t));
  }

  /** Starts the keepalive pings. */
  start(): void {
    if (this.pinger !== null) return;
    this.pinger = this.timers.setInterval(() => this.keepalive(), this.pingMs);
    unref(this.pinger);
  }

  /** Registers an open socket; the newest status is sent at once so a page need not wait 2 s. */
  connect(socket: PushSocket): PushConnection {
    const conn: Conn = { socket, alive: true };
    this.conns.add(conn);
    if (this.lastStatus) this.deliver(conn, this.lastStatus);
    return {
      alive: () => {
        conn.alive = true;
      },
      closed: () => {
        this.conns.delete(conn);
      },
    };
  }

  status(snapshot: unknown): void {
    const text = JSON.stringify({ type: 'status', data: snapshot });
    this.lastStatus = text;
    this.send(text);
  }

  /** Merges bursts: the first change of a resource opens a window; one message goes out when it closes. */
  invalidate(resource: InvalidateResource): void {
    if (this.conns.size === 0 || this.pending.has(resource)) return;
    const h = this.timers.setTimeout(() => {
      this.pending.delete(resource);
      this.broadcast({ type: 'invalidate', resource });
    }, this.mergeMs);
    unref(h);
    this.pending.set(resource, h);
  }

  traffic(t: DomainEvents['traffic.tick']): void {
    const moved = <T extends { up: number; down: number }>(rows: T[]) => rows.filter((r) => r.up !== 0 || r.down !== 0);
    const inbounds = moved(t.inbounds);
    const outbounds = moved(t.outbounds);
    const clients = moved(t.clients);
    const onlines = [...t.onlines].sort();
    const onlinesKey = onlines.join('\n');
    if (inbounds.length || outbounds.length || onlinesKey !== this.lastOnlines) {
      this.lastOnlines = onlinesKey;
      this.broadcast({ type: 'traffic', data: { inbounds, outbounds, onlines } });
    }
    if (clients.length) this.broadcast({ type: 'client_stats', data: { clients } });
  }

  broadcast(msg: object): void {
    if (this.conns.size === 0) return;
    this.send(JSON.stringify(msg));
  }

  /** One serialisation, the same text to every connection. */
  private send(text: string): void {
    this.stats.messages++;
    for (const conn of [...this.conns]) this.deliver(conn, text);
  }

  private deliver(conn: Conn, text: string): void {
    let buffered = 0;
    try {
      buffered = conn.socket.bufferedAmount();
    } catch {
      buffered = 0;
    }
    if (buffered + text.length > this.maxBuffered) {
      this.drop(conn, `send buffer over ${this.maxBuffered} bytes`);
      return;
    }
    try {
      conn.socket.send(text);
      this.stats.sent++;
    } catch {
      this.drop(conn, 'send failed');
    }
  }

  private drop(conn: Conn, reason: string): void {
    this.conns.delete(conn);
    this.stats.dropped++;
    try {
      conn.socket.terminate();
    } catch {
      /* already gone */
    }
    this.opts.onDrop?.(reason);
  }

  /** Pings every connection; one that never answered the previous ping is dropped. */
  keepalive(): void {
    for (const conn of [...this.conns]) {
      if (!conn.alive) {
        this.drop(conn, 'no pong');
        continue;
      }
      conn.alive = false;
      try {
        conn.socket.ping();
      } catch {
        this.drop(conn, 'ping failed');
      }
    }
  }

  /** Closes every connection (1001 going away) but keeps the hub usable (a listener restart). */
  disconnectAll(reason = 'server going away'): void {
    for (const conn of [...this.conns]) {
      this.conns.delete(conn);
      try {
        conn.socket.close(1001, reason);
      } catch {
        try {
          conn.socket.terminate();
        } catch {
          /* gone */
        }
      }
    }
  }

  /** Graceful stop: pending merges dropped, timers cleared, every connection closed with 1001. */
  close(reason = 'server going away'): void {
    if (this.pinger !== null) this.timers.clearInterval(this.pinger);
    this.pinger = null;
    for (const h of this.pending.values()) this.timers.clearTimeout(h);
    this.pending.clear();
    this.disconnectAll(reason);
  }

  /** Unsubscribes from the events (after close, when the hub is discarded). */
  detach(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }
}
