// Storage port of the node sync: inbounds placed on nodes, per (node, email) counter baselines, node samples.
import type { CounterMove } from '../clients/catalog.js';

/** A local inbound as placed on a node. */
export interface Placement {
  inboundId: number;
  remoteId: number;
  remoteTag: string;
  /** Hash of the configuration last pushed; '' forces the next sync to push it. */
  pushedHash: string;
}

/** One client's counters as the node reports them (cumulative bytes on the node). */
export interface NodeCounter {
  email: string;
  up: number;
  down: number;
}

export interface NodeSample {
  t: number;
  cpu: number;
  mem: number;
}

export interface NodeSyncRepo {
  placements(nodeId: number): Promise<Placement[]>;
  savePlacement(nodeId: number, p: Placement): Promise<void>;
  dropPlacement(nodeId: number, inboundId: number): Promise<void>;
  /**
   * In ONE transaction: for each reported counter the delta against the stored baseline (`current - baseline`,
   * or `current` when it went backwards: the node's counter was reset), added to client_traffics as a local tick
   * adds (lastOnline = now for moved clients, delayed start begins); the baselines set to the reported values;
   * lastOnline raised to the node's `lastOnline` values; baselines of emails not reported dropped. Returns the
   * deltas applied (emails unknown here included: their bytes go nowhere).
   */
  applyCounters(
    nodeId: number,
    counters: readonly NodeCounter[],
    lastOnline: ReadonlyMap<string, number>,
    nowMs: number,
  ): Promise<CounterMove[]>;
  /** Sets the baselines of the emails (every email of the node with 'all') to zero: the node's counters were reset. */
  resetBaselines(nodeId: number, emails: readonly string[] | 'all'): Promise<void>;
  baselines(nodeId: number): Promise<Map<string, { up: number; down: number }>>;
  addSample(nodeId: number, s: NodeSample): Promise<void>;
  samples(nodeId: number, sinceT: number): Promise<NodeSample[]>;
  /** Drops every sample of the node (its connection details changed: they described another target). */
  dropSamples(nodeId: number): Promise<void>;
  /** Drops samples older than `beforeT`; returns rows removed. */
  pruneSamples(beforeT: number): Promise<number>;
}
