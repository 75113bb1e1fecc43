// Reads for links and the subscription server: clients by sub_id (or email) with their counters; their
// attachments with the inbound rows; the fallback masters of those inbounds. Each is an index lookup, and only
// the needed columns are selected (the libsql client's cost grows with every column read).
import { and, asc, eq, inArray } from 'drizzle-orm';
import type {
  SubInboundRecord,
  SubscriptionClient,
  SubscriptionData,
  SubscriptionRepo,
} from '../../domain/ports/subscription-repo.js';
import type { Json, Protocol } from '../../domain/inbounds/model.js';
import type { Conn } from '../conn.js';

const parseObj = (text: string): Json => {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

const EMPTY = (): SubscriptionData => ({ clients: [], inbounds: [], masters: {} });

export function subscriptionsRepo(c: Conn): SubscriptionRepo {
  const { clients, clientTraffics, clientInbounds, inbounds, fallbacks } = c.t;

  const clientCols = {
    id: clients.id,
    email: clients.email,
    subId: clients.subId,
    uuid: clients.uuid,
    password: clients.password,
    auth: clients.auth,
    flow: clients.flow,
    security: clients.security,
    method: clients.method,
    totalGB: clients.totalGB,
    expiryTime: clients.expiryTime,
    enable: clients.enable,
    up: clientTraffics.up,
    down: clientTraffics.down,
    tEnable: clientTraffics.enable,
    lastOnline: clientTraffics.lastOnline,
  };
  const inboundCols = {
    id: inbounds.id,
    protocol: inbounds.protocol,
    listen: inbounds.listen,
    port: inbounds.port,
    remark: inbounds.remark,
    settings: inbounds.settings,
    streamSettings: inbounds.streamSettings,
    enable: inbounds.enable,
  };
  type InboundRow = {
    id: number;
    protocol: string;
    listen: string;
    port: number;
    remark: string;
    settings: string;
    streamSettings: string;
    enable: boolean;
  };
  const toInbound = (r: InboundRow): SubInboundRecord => ({
    ...r,
    protocol: r.protocol as Protocol,
    settings: parseObj(r.settings),
    streamSettings: parseObj(r.streamSettings),
  });

  type ClientRow = {
    id: number;
    email: string;
    subId: string;
    uuid: string;
    password: string;
    auth: string;
    flow: string;
    security: string;
    method: string;
    totalGB: number;
    expiryTime: number;
    enable: boolean;
    up: number | null;
    down: number | null;
    tEnable: boolean | null;
    lastOnline: number | null;
  };
  const toSubClient = ({ up, down, tEnable, lastOnline, ...client }: ClientRow): SubscriptionClient => ({
    client: { ...client, totalGB: Number(client.totalGB), expiryTime: Number(client.expiryTime) },
    traffic: {
      up: Number(up ?? 0),
      down: Number(down ?? 0),
      enable: tEnable ?? true,
      lastOnline: Number(lastOnline ?? 0),
    },
    inboundIds: [],
  });

  /** Attaches inbounds to the clients; `enabledOnly` keeps enabled inbounds and drops clients left with none. */
  async function withInbounds(subClients: SubscriptionClient[], enabledOnly: boolean): Promise<SubscriptionData> {
    if (subClients.length === 0) return EMPTY();
    const byId = new Map(subClients.map((s) => [s.client.id, s]));
    const found = new Map<number, SubInboundRecord>();
    const ids = [...byId.keys()];
    for (let i = 0; i < ids.length; i += 1000) {
      const part = ids.slice(i, i + 1000);
      const where = enabledOnly
        ? and(inArray(clientInbounds.clientId, part), eq(inbounds.enable, true))
        : inArray(clientInbounds.clientId, part);
      const rows = await c.db
        .select({ clientId: clientInbounds.clientId, ...inboundCols })
        .from(clientInbounds)
        .innerJoin(inbounds, eq(inbounds.id, clientInbounds.inboundId))
        .where(where)
        .orderBy(asc(inbounds.id));
      for (const { clientId, ...r } of rows) {
        byId.get(clientId)?.inboundIds.push(r.id);
        if (!found.has(r.id)) found.set(r.id, toInbound(r));
      }
    }
    const kept = enabledOnly ? subClients.filter((s) => s.inboundIds.length > 0) : subClients;
    const masters: Record<number, SubInboundRecord> = {};
    if (found.size > 0) {
      const rules = await c.db
        .select({ childId: fallbacks.childId, masterId: fallbacks.masterId })
        .from(fallbacks)
        .where(inArray(fallbacks.childId, [...found.keys()]))
        .orderBy(asc(fallbacks.sortOrder), asc(fallbacks.id));
      const first = new Map<number, number>();
      for (const r of rules) if (!first.has(r.childId)) first.set(r.childId, r.masterId);
      if (first.size > 0) {
        const rows = await c.db
          .select(inboundCols)
          .from(inbounds)
          .where(inArray(inbounds.id, [...new Set(first.values())]));
        const byMaster = new Map(rows.map((r) => [r.id, toInbound(r)]));
        for (const [child, master] of first) {
          const m = byMaster.get(master);
          if (m) masters[child] = m;
        }
      }
    }
    return { clients: kept, inbounds: [...found.values()].sort((a, b) => a.id - b.id), masters };
  }

  return {
    async bySubId(subId) {
      if (!subId) return EMPTY();
      const rows = await c.db
        .select(clientCols)
        .from(clients)
        .leftJoin(clientTraffics, eq(clientTraffics.email, clients.email))
        .where(eq(clients.subId, subId))
        .orderBy(asc(clients.id));
      return withInbounds(rows.map(toSubClient), true);
    },
    async byEmail(email) {
      const rows = await c.db
        .select(clientCols)
        .from(clients)
        .leftJoin(clientTraffics, eq(clientTraffics.email, clients.email))
        .where(eq(clients.email, email));
      if (rows.length === 0) return null;
      return withInbounds(rows.map(toSubClient), false);
    },
  };
}
