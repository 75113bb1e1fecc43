// Storage port for remote nodes: records, cached health, per-node roll-ups (SQL) and what the node pusher reads.
import type { NodeHealth, NodeRecord, NodeRollup, NodeWrite } from '../nodes/model.js';
import type { ClientRecord } from '../clients/model.js';

/** A client as the pusher needs it: the record plus the ids of its inbounds bound to one node. */
export interface NodeClientState {
  client: ClientRecord;
  /** Attached inbounds that are bound to the node, with their local tags. */
  inbounds: { id: number; tag: string }[];
}

export interface NodesRepo {
  list(): Promise<NodeRecord[]>;
  byId(id: number): Promise<NodeRecord | null>;
  insert(row: NodeWrite, now: number): Promise<NodeRecord>;
  /** Replaces the connection fields (and the health when given); null when missing. */
  update(id: number, row: NodeWrite, now: number, health?: NodeHealth): Promise<NodeRecord | null>;
  /** Deletes the node; bound inbounds keep their node_id (not migrated). */
  remove(id: number): Promise<boolean>;
  setEnable(id: number, enable: boolean, now: number): Promise<boolean>;
  /** Writes a probe/heartbeat result; false when the node no longer exists. */
  saveHealth(id: number, health: NodeHealth): Promise<boolean>;
  /**
   * Roll-ups per node in SQL (grouped statements, nothing loaded per client): inbounds bound to it, distinct clients
   * attached to those inbounds,
   * of them online (client_traffics.last_online >= onlineSince) and depleted (client and counters disabled).
   */
  rollups(onlineSince: number): Promise<Map<number, NodeRollup>>;
  /** Local tags of all inbounds bound to the node. */
  boundInbounds(nodeId: number): Promise<{ id: number; tag: string }[]>;
  /** Ids of nodes having at least one bound inbound. */
  nodesWithInbounds(): Promise<number[]>;
  /** For each email that exists locally: the client and its inbounds bound to `nodeId` (possibly none). */
  clientStates(nodeId: number, emails: string[]): Promise<Map<string, NodeClientState>>;
  /** Emails of every client attached to an inbound bound to the node. */
  emailsOnNode(nodeId: number): Promise<string[]>;
  /** The subset of `emails` that are tombstoned (deleted clients). */
  tombstoned(emails: string[]): Promise<Set<string>>;
}
