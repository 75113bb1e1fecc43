// Storage port for client groups: persistent names merged with the labels clients carry.
import type { GroupSummary } from '../clients/model.js';

export interface GroupsRepo {
  /** Stored groups merged with distinct client labels, with counts, sorted case-insensitively. */
  list(): Promise<GroupSummary[]>;
  /** The stored names only (client_groups), in no particular order. */
  storedNames(): Promise<string[]>;
  /** Whether the name is a stored group or a label some client carries. */
  exists(name: string): Promise<boolean>;
  emails(name: string): Promise<string[]>;
  /** False when a stored group or a client label already has this name. */
  create(name: string, now: number): Promise<boolean>;
  /** Stores the name if it is not stored yet (no error when it exists). */
  ensure(name: string, now: number): Promise<void>;
  /** One transaction: relabels member clients and renames the stored group. Returns the relabelled emails. */
  rename(oldName: string, newName: string, now: number): Promise<string[]>;
  /** One transaction: clears the label on member clients and drops the stored group. Returns the emails cleared. */
  remove(name: string, now: number): Promise<string[]>;
}
