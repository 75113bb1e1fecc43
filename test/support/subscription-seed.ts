// Seeding inbounds and clients straight into a test database (through a second connection to the same URL), so
// the subscription suites do not depend on the client API's shape.
import { connect, type Connection } from '../../storage/conn.js';
import type { TestDatabase } from './databases.js';

/** A TestDatabase that remembers the URL of the database it handed out last. */
export function recordingDatabase(db: TestDatabase): TestDatabase & { url: () => string } {
  let last = '';
  return { name: db.name, freshUrl: async () => (last = await db.freshUrl()), url: () => last };
}

export interface SeedInbound {
  protocol: string;
  port: number;
  remark?: string;
  listen?: string;
  enable?: boolean;
  settings?: Record<string, unknown>;
  streamSettings?: Record<string, unknown>;
  tag?: string;
}

export interface SeedClient {
  email: string;
  subId: string;
  uuid?: string;
  password?: string;
  auth?: string;
  flow?: string;
  security?: string;
  method?: string;
  totalGB?: number;
  expiryTime?: number;
  enable?: boolean;
  up?: number;
  down?: number;
  trafficEnable?: boolean;
  lastOnline?: number;
}

export class Seeder {
  private constructor(readonly conn: Connection) {}
  static async open(url: string): Promise<Seeder> {
    return new Seeder(await connect(url));
  }

  async inbound(i: SeedInbound): Promise<number> {
    const { inbounds } = this.conn.t;
    const [row] = await this.conn.write((db) =>
      db
        .insert(inbounds)
        .values({
          protocol: i.protocol,
          port: i.port,
          remark: i.remark ?? '',
          listen: i.listen ?? '',
          enable: i.enable ?? true,
          settings: JSON.stringify(i.settings ?? {}),
          streamSettings: JSON.stringify(i.streamSettings ?? { network: 'tcp', security: 'none' }),
          sniffing: '{}',
          tag: i.tag ?? `inbound-${i.port}`,
        })
        .returning({ id: inbounds.id }),
    );
    return row!.id;
  }

  async client(c: SeedClient, inboundIds: number[]): Promise<number> {
    const { clients, clientInbounds, clientTraffics } = this.conn.t;
    const now = Date.now();
    const [row] = await this.conn.write((db) =>
      db
        .insert(clients)
        .values({
          email: c.email,
          subId: c.subId,
          uuid: c.uuid ?? crypto.randomUUID(),
          password: c.password ?? '',
          auth: c.auth ?? '',
          flow: c.flow ?? '',
          security: c.security ?? '',
          method: c.method ?? '',
          totalGB: c.totalGB ?? 0,
          expiryTime: c.expiryTime ?? 0,
          enable: c.enable ?? true,
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: clients.id }),
    );
    const id = row!.id;
    if (inboundIds.length)
      await this.conn.write((db) =>
        db.insert(clientInbounds).values(inboundIds.map((inboundId) => ({ clientId: id, inboundId }))),
      );
    await this.conn.write((db) =>
      db.insert(clientTraffics).values({
        email: c.email,
        up: c.up ?? 0,
        down: c.down ?? 0,
        enable: c.trafficEnable ?? true,
        lastOnline: c.lastOnline ?? 0,
      }),
    );
    return id;
  }

  async fallback(masterId: number, childId: number, sortOrder = 0): Promise<void> {
    const { fallbacks } = this.conn.t;
    await this.conn.write((db) => db.insert(fallbacks).values({ masterId, childId, sortOrder }));
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}
