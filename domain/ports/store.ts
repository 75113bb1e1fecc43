// The storage port: what the domain needs from a database. storage/ implements it on libsql and PostgreSQL.
// Each area has its own repository interface in this folder; the Store composes them.
import type { UsersRepo, SettingsRepo, TokensRepo } from './auth-repo.js';
import type { CoreViewRepo } from './core-view.js';
import type { TrafficRepo } from './traffic-repo.js';
import type { SubscriptionRepo } from './subscription-repo.js';
import type { InboundsRepo } from './inbounds-repo.js';
import type { ClientsRepo } from './clients-repo.js';
import type { GroupsRepo } from './groups-repo.js';

export interface Store {
  readonly users: UsersRepo;
  readonly settings: SettingsRepo;
  readonly tokens: TokensRepo;
  readonly coreView: CoreViewRepo;
  readonly traffic: TrafficRepo;
  readonly subscriptions: SubscriptionRepo;
  readonly inbounds: InboundsRepo;
  readonly clients: ClientsRepo;
  readonly groups: GroupsRepo;
  readonly backup: import('./backup-repo.js').BackupRepo;
  readonly nodes: import('./nodes-repo.js').NodesRepo;
  readonly geo: import('./geo-repo.js').GeoRepo;
  readonly nodeSync: import('./node-sync-repo.js').NodeSyncRepo;
  /** Runs `fn` in one transaction; the Store it receives is bound to that transaction. */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /** `sqlite` or `pg`, for messages and diagnostics only: behaviour must not depend on it. */
  readonly dialect: string;
  close(): Promise<void>;
}
