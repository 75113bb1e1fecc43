// Reads for proxy links and the subscription server. Indexed by subId and by email, so a request costs the same
// at 100 clients as at 100,000. Only the columns links, headers and the info page need are read.
import type { ClientRecord } from '../clients/model.js';
import type { InboundRecord } from '../inbounds/model.js';

/** The client fields links, headers and the page use. */
export type SubClientRecord = Pick<
  ClientRecord,
  | 'id'
  | 'email'
  | 'subId'
  | 'uuid'
  | 'password'
  | 'auth'
  | 'flow'
  | 'security'
  | 'method'
  | 'totalGB'
  | 'expiryTime'
  | 'enable'
>;
/** The inbound fields links use. */
export type SubInboundRecord = Pick<
  InboundRecord,
  'id' | 'protocol' | 'listen' | 'port' | 'remark' | 'settings' | 'streamSettings' | 'enable'
>;

export interface SubscriptionClient {
  client: SubClientRecord;
  /** Counters (zeros and enable=true when the client has no traffic row). */
  traffic: { up: number; down: number; enable: boolean; lastOnline: number };
  /** Ids of the inbounds in `inbounds` this client is attached to. */
  inboundIds: number[];
}

export interface SubscriptionData {
  clients: SubscriptionClient[];
  /** The inbounds the clients are attached to (see each method for which), by id ascending. */
  inbounds: SubInboundRecord[];
  /**
   * For an inbound that is the destination (child) of a fallback rule: the master inbound of its first rule
   * (lowest sortOrder, then id), by child id. Links of a child advertise the master's address and security.
   */
  masters: Record<number, SubInboundRecord>;
}

export interface SubscriptionRepo {
  /**
   * Every client with this subId (enabled or not) that is attached to at least one ENABLED inbound, with only
   * its enabled inbounds. Clients on no enabled inbound are left out; empty when nothing matches.
   */
  bySubId(subId: string): Promise<SubscriptionData>;
  /** One client with every inbound it is attached to (enabled or not); null when the email is unknown. */
  byEmail(email: string): Promise<SubscriptionData | null>;
}
