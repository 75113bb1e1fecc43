// Bound inbounds live on their node: each local inbound with nodeId N is placed on node N through the node's
// inbound API (created there, or adopted when the node already has an inbound with the tag it would get), kept
// equal to the local configuration (a hash of what was last pushed, so an unchanged inbound costs no call), and
// deleted there once it is deleted or moved here. Placements are stored (node_inbounds), so a deletion is known
// after a restart too; remote inbounds this panel never placed are left alone.
import type { Store } from '../ports/store.js';
import type { Placement } from '../ports/node-sync-repo.js';
import type { InboundRecord } from '../inbounds/model.js';
import type { RemoteClient, RemoteInbound, RemotePanel } from './remote.js';

/** The configuration pushed to the node: the inbound's own fields (its clients are pushed by the client sync). */
export function inboundPayload(ib: InboundRecord): Record<string, unknown> {
  return {
    remark: ib.remark,
    enable: ib.enable,
    expiryTime: ib.expiryTime,
    listen: ib.listen,
    port: ib.port,
    protocol: ib.protocol,
    total: ib.total,
    settings: ib.settings,
    streamSettings: ib.streamSettings,
    sniffing: ib.sniffing,
  };
}

/** The tag the node gives the inbound: the local tag without the `n<nodeId>-` prefix. */
export const remoteTagOf = (nodeId: number, localTag: string): string => {
  const prefix = `n${nodeId}-`;
  return localTag.startsWith(prefix) ? localTag.slice(prefix.length) : localTag;
};

async function hashOf(payload: Record<string, unknown>): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export interface InboundSyncResult {
  /** Local inbound id → remote inbound id, for every bound inbound that is on the node now. */
  map: Map<number, number>;
  /** Local inbounds newly created or adopted on the node (their clients must be pushed). */
  placed: number[];
  created: number;
  updated: number;
  deleted: number;
  /** Remote clients deleted because the inbound that held them was removed from the node. */
  orphansDeleted: string[];
  errors: string[];
}

/**
 * Converges node `nodeId`'s inbounds to the local bound ones. `force` pushes every bound inbound even when its hash
 * is unchanged (a reconcile: someone may have edited it on the node). Errors are per inbound; the rest goes on.
 */
export async function syncInbounds(
  store: Store,
  remote: RemotePanel,
  nodeId: number,
  remoteInbounds: RemoteInbound[],
  remoteClients: RemoteClient[],
  force: boolean,
): Promise<InboundSyncResult> {
  const res: InboundSyncResult = {
    map: new Map(),
    placed: [],
    created: 0,
    updated: 0,
    deleted: 0,
    orphansDeleted: [],
    errors: [],
  };
  const bound = (await store.inbounds.list()).filter((ib) => ib.nodeId === nodeId);
  const placements = new Map((await store.nodeSync.placements(nodeId)).map((p) => [p.inboundId, p]));
  const byId = new Map(remoteInbounds.map((r) => [r.id, r]));
  const byTag = new Map(remoteInbounds.map((r) => [r.tag, r]));
  const boundIds = new Set(bound.map((b) => b.id));

  // Removed first: a moved inbound frees its port on this node before another one may want it.
  for (const p of placements.values()) {
    if (boundIds.has(p.inboundId)) continue;
    try {
      const r = byId.get(p.remoteId);
      if (r && r.tag === p.remoteTag) {
        const held = remoteClients.filter((c) => c.inboundIds.includes(r.id));
        await remote.delInbound(r.id);
        res.deleted++;
        byId.delete(r.id);
        byTag.delete(r.tag);
        // Clients that were only in that inbound were put there by this panel: they go with it.
        for (const c of held) {
          c.inboundIds = c.inboundIds.filter((i) => i !== r.id);
          if (c.inboundIds.length === 0) {
            await remote.del(c.email);
            res.orphansDeleted.push(c.email);
          }
        }
      }
      await store.nodeSync.dropPlacement(nodeId, p.inboundId);
    } catch (err) {
      res.errors.push(`inbound ${p.inboundId} (remote ${p.remoteId}): delete on the node failed: ${msg(err)}`);
    }
  }

  for (const ib of bound) {
    try {
      const payload = inboundPayload(ib);
      const hash = await hashOf(payload);
      const p = placements.get(ib.id);
      let r = p ? byId.get(p.remoteId) : undefined;
      if (r && p && r.tag !== p.remoteTag) r = undefined; // not the inbound we placed any more
      const adopted = !r;
      r ??= byTag.get(remoteTagOf(nodeId, ib.tag));
      let placement: Placement;
      if (!r) {
        const made = await remote.addInbound(payload);
        res.created++;
        placement = { inboundId: ib.id, remoteId: made.id, remoteTag: made.tag, pushedHash: hash };
      } else if (force || adopted || !p || p.pushedHash !== hash) {
        const saved = await remote.updateInbound(r.id, payload);
        res.updated++;
        placement = { inboundId: ib.id, remoteId: saved.id, remoteTag: saved.tag, pushedHash: hash };
      } else {
        res.map.set(ib.id, r.id);
        continue;
      }
      await store.nodeSync.savePlacement(nodeId, placement);
      res.map.set(ib.id, placement.remoteId);
      if (!p || p.remoteId !== placement.remoteId) res.placed.push(ib.id);
    } catch (err) {
      res.errors.push(`inbound '${ib.tag}' (id ${ib.id}): ${msg(err)}`);
    }
  }
  return res;
}

const msg = (err: unknown) => (err instanceof Error ? err.message : String(err));
