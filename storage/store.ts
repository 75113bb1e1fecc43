// `openStore(url)`: the Store port on libsql or PostgreSQL, chosen by URL.
import type { Store } from '../domain/ports/store.js';
import { connect, type Conn } from './conn.js';
import { runMigrations } from './migrate.js';
import { settingsRepo, tokensRepo, usersRepo } from './repos/auth.js';
import { coreViewRepo } from './repos/core-view.js';
import { trafficRepo } from './repos/traffic.js';
import { subscriptionsRepo } from './repos/subscriptions.js';
import { inboundsRepo } from './repos/inbounds.js';
import { clientsRepo } from './repos/clients.js';
import { groupsRepo } from './repos/groups.js';
import { backupRepo } from './repos/backup.js';
import { nodesRepo } from './repos/nodes.js';
import { geoRepo } from './repos/geo.js';
import { nodeSyncRepo } from './repos/node-sync.js';

export function createStore(c: Conn, close: () => Promise<void> = async () => {}): Store {
  return {
    dialect: c.dialect,
    users: usersRepo(c),
    settings: settingsRepo(c),
    tokens: tokensRepo(c),
    coreView: coreViewRepo(c),
    traffic: trafficRepo(c),
    subscriptions: subscriptionsRepo(c),
    inbounds: inboundsRepo(c),
    clients: clientsRepo(c),
    groups: groupsRepo(c),
    backup: backupRepo(c),
    nodes: nodesRepo(c),
    geo: geoRepo(c),
    nodeSync: nodeSyncRepo(c),
    transaction: (fn) => c.tx((tx) => fn(createStore(tx))),
    close,
  };
}

/** Opens the database at `url`, applying pending migrations first unless `migrate` is false. */
export async function openStore(url: string, opts: { migrate?: boolean } = {}): Promise<Store> {
  if (opts.migrate !== false) await runMigrations(url);
  const conn = await connect(url);
  return createStore(conn, () => conn.close());
}
