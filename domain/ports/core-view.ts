// The storage port for the core: the efficient read of everything the core-config builder and the core sync
// need (enabled local inbounds, their enabled clients, fallback rules), implemented in storage/repos/core-view.ts.
import type { FallbackRule, Json, Protocol } from '../inbounds/model.js';

/** An inbound as the core needs it. */
export interface CoreInbound {
  id: number;
  tag: string;
  protocol: Protocol;
  enable: boolean;
  listen: string;
  port: number;
  settings: Json;
  streamSettings: Json;
  sniffing: Json;
  nodeId: number | null;
}

/** The client fields the core config emits (spec: core config emission per protocol). */
export interface CoreClient {
  email: string;
  uuid: string;
  password: string;
  auth: string;
  flow: string;
  security: string;
  method: string;
  reverse: { tag: string } | null;
  enable: boolean;
}

/** A fallback rule as the builder reads it. */
export type CoreFallback = Omit<FallbackRule, 'id'>;

/** Everything the builder reads: enabled local inbounds, their enabled clients, and all fallback rules. */
export interface CoreViewData {
  /** Enabled inbounds with no node (nodeId null), ordered by id. */
  inbounds: CoreInbound[];
  /** Enabled clients per inbound id (only for the inbounds above), ordered by client id. */
  clients: Map<number, CoreClient[]>;
  /** Fallback rules, ordered by master id then sortOrder. */
  fallbacks: CoreFallback[];
}

/** A client with the inbounds it is attached to (for targeted live sync). */
export interface CoreClientAttachments {
  client: CoreClient;
  inboundIds: number[];
}

export interface CoreViewRepo {
  /** Everything the full config needs, in a handful of queries. */
  load(): Promise<CoreViewData>;
  /** The given clients (enabled or not) with their attachments; unknown emails are absent. */
  clientsByEmails(emails: string[]): Promise<CoreClientAttachments[]>;
  /** Every inbound tag (for the core settings payload). */
  inboundTags(): Promise<string[]>;
  /** Distinct non-empty reverse tags of clients. */
  clientReverseTags(): Promise<string[]>;
}
