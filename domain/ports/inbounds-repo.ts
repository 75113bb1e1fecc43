// Storage port for inbounds, their fallbacks, and the client rows projected into them.
import type { FallbackInput, FallbackRule, InboundRecord, InboundWrite } from '../inbounds/model.js';
import type { ClientRecord, ClientWrite } from '../clients/model.js';

/** One attached client with its counters, as projected into an inbound. */
export interface AttachedClientRow {
  inboundId: number;
  client: ClientRecord;
  up: number;
  down: number;
  /** client_traffics.enable (false = auto-disabled); true when the row is missing. */
  trafficEnable: boolean;
  lastOnline: number;
}

export interface ImportResult {
  inbound: InboundRecord;
  /** Emails created by the import. */
  created: string[];
  /** Emails that already existed and were attached. */
  attached: string[];
}

export interface InboundsRepo {
  list(): Promise<InboundRecord[]>;
  byId(id: number): Promise<InboundRecord | null>;
  byIds(ids: number[]): Promise<InboundRecord[]>;
  /** The inbounds a client is attached to, by id. */
  ofClient(clientId: number): Promise<InboundRecord[]>;
  /** Inbounds listening on `port` (any listen address, any node). */
  byPort(port: number): Promise<InboundRecord[]>;
  tagTaken(tag: string, exceptId?: number): Promise<boolean>;
  /** Inserts; null when the tag is taken (unique index). */
  create(row: InboundWrite): Promise<InboundRecord | null>;
  /**
   * Replaces the writable fields; null when the inbound does not exist; throws `TagTaken` via null tag check upstream.
   */
  update(id: number, row: InboundWrite): Promise<InboundRecord | null>;
  /** Deletes the inbound (attachments and fallbacks cascade; clients survive). */
  remove(id: number): Promise<boolean>;
  setEnable(id: number, enable: boolean): Promise<boolean>;
  /** Zeroes up/down of one inbound or all; returns the number of rows changed. */
  resetTraffic(id: number | 'all'): Promise<number>;
  /** Attached clients of the given inbounds (all inbounds when 'all'), ordered by inbound then client id. */
  attachedClients(inboundIds: number[] | 'all'): Promise<AttachedClientRow[]>;
  /**
   * One inbound's `settings.clients` and `clientStats` as JSON array TEXT built by the database (client id order),
   * for splicing into the response without materialising 20,000 objects. `project` says which fields the
   * protocol shows (see InboundsService projectClient/statOf; the handler suite checks both paths agree).
   * With `withClients` false only the stats are built (`clients` null).
   */
  attachedJson(inboundId: number, project: AttachedJsonProjection, withClients?: boolean): Promise<AttachedJson>;
  /**
   * The `settings.clients` entries (as attachedJson builds them) of those of `emails` attached to the inbound, in
   * client id order; emails not attached to it are left out. For patching a kept array after a few client changes.
   */
  clientEntriesJson(inboundId: number, project: AttachedJsonProjection, emails: string[]): Promise<ClientEntryJson[]>;
  fallbacks(masterId: number): Promise<FallbackRule[]>;
  /** Replaces the whole fallback list of a master in one transaction. */
  replaceFallbacks(masterId: number, rules: FallbackInput[]): Promise<FallbackRule[]>;
  nodeExists(id: number): Promise<boolean>;
  /**
   * One transaction: inserts the inbound, creates the clients whose email is new, attaches every listed client
   * (existing emails are attached, not duplicated). Null when the tag is taken.
   */
  importWithClients(row: InboundWrite, clients: ClientWrite[], now: number): Promise<ImportResult | null>;
}

/** What an inbound's projected client entries carry (by protocol; flow only where the inbound can use it). */
export interface AttachedJson {
  clients: string | null;
  stats: string;
  /** Some attached client has a delayed expiry (negative expiryTime), which its first traffic starts. */
  delayedStart: boolean;
  /** The highest attached client id (0 when none). */
  lastClientId: number;
}

/** One client's `settings.clients` entry as JSON text. */
export interface ClientEntryJson {
  id: number;
  email: string;
  json: string;
  /** The client has a delayed expiry (negative expiryTime). */
  delayedStart: boolean;
}

export interface AttachedJsonProjection {
  protocol: string;
  /** Whether `flow` keeps the client's value (else ''); flowFor() in domain/clients/rules.ts. */
  flowEligible: boolean;
}
