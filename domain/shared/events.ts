/**
 * Typed domain events (DESIGN.md principle 7). Use cases emit; the WebSocket hub, the core sync, the node
 * pusher and logging subscribe. Handlers never emit.
 */
import type { StatusSnapshot } from '../status/model.js';

export interface DomainEvents {
  /** Client rows changed (added, updated, removed, attached, detached, enabled, disabled, traffic reset). */
  'clients.changed': { emails: string[] | 'all'; action: string };
  /** Inbound rows changed (added, updated, removed, enabled, disabled, fallbacks). */
  'inbounds.changed': { ids: number[] | 'all'; action: string };
  'groups.changed': { action: string };
  'settings.changed': { keys: string[] };
  'tokens.changed': { action: string };
  'nodes.changed': { ids: number[] | 'all'; action: string };
  /** The core process changed state. */
  'core.state': { state: string; error?: string };
  /** A human-facing notice (core stop/restart, database import, panel restart…). */
  notification: { title: string; body: string; severity: 'success' | 'info' | 'warning' | 'error' };
  /** Emitted once a traffic tick's counters are stored (at `at`, unix ms), with only the counters that moved. */
  'traffic.tick': {
    at: number;
    inbounds: { tag: string; up: number; down: number }[];
    outbounds: { tag: string; up: number; down: number }[];
    clients: { email: string; up: number; down: number }[];
    onlines: string[];
  };
  /** The status sampler took a sample (every 2 s); the WebSocket hub pushes it as `status`. */
  'status.sampled': StatusSnapshot;
}

export type EventName = keyof DomainEvents;
export type Listener<K extends EventName> = (payload: DomainEvents[K]) => void;

export interface EventSink {
  emit<K extends EventName>(name: K, payload: DomainEvents[K]): void;
}

/** In-process, synchronous event bus. A throwing listener never breaks the emitter or the other listeners. */
export class EventBus implements EventSink {
  private listeners = new Map<EventName, Set<Listener<any>>>();

  on<K extends EventName>(name: K, fn: Listener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(fn);
    return () => set!.delete(fn);
  }

  emit<K extends EventName>(name: K, payload: DomainEvents[K]): void {
    for (const fn of this.listeners.get(name) ?? []) {
      try {
        fn(payload);
      } catch (err) {
        console.error(`event listener for ${name} failed:`, err);
      }
    }
  }
}

/** Where a service emits its events, and listens to others' where it can (the EventBus can; RecordingEvents cannot). */
export type EventChannel = EventSink & Partial<Pick<EventBus, 'on'>>;

/** Records events, for tests. */
export class RecordingEvents implements EventSink {
  readonly log: { name: EventName; payload: unknown }[] = [];
  emit<K extends EventName>(name: K, payload: DomainEvents[K]): void {
    this.log.push({ name, payload });
  }
  of<K extends EventName>(name: K): DomainEvents[K][] {
    return this.log.filter((e) => e.name === name).map((e) => e.payload as DomainEvents[K]);
  }
}
