// The core view repository's full read on libsql and PostgreSQL (the two dialects read the pairs differently:
// one JSON text on SQLite, plain rows on PostgreSQL): every field mapped, per-inbound lists in client id order,
// disabled clients, disabled inbounds and node inbounds left out. Plus the PostgreSQL storage parameter of
// client_traffics that keeps the traffic tick's updates on the page (migration 0001).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { testDatabases, freshStoreAndConn } from '../support/databases.js';
import type { Connection } from '../../storage/conn.js';
import type { Store } from '../../domain/ports/store.js';

describe.each(testDatabases())('core view load on $name', (db) => {
  let store: Store;
  let conn: Connection;
  const opened: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    ({ store, conn } = await freshStoreAndConn(db));
    opened.push(store, conn);
  });
  afterAll(async () => {
    for (const o of opened) await o.close();
  });

  async function inbound(tag: string, port: number, extra: { enable?: boolean; nodeId?: number } = {}) {
    const [row] = await conn.write((d) =>
      d
        .insert(conn.t.inbounds)
        .values({ tag, port, protocol: 'vless', ...extra })
        .returning(),
    );
    return row!.id;
  }

  async function client(email: string, inboundIds: number[], extra: Record<string, unknown> = {}) {
    const { clients, clientInbounds } = conn.t;
    const [row] = await conn.write((d) =>
      d
        .insert(clients)
        .values({ email, uuid: `uuid-${email}`, createdAt: 1, updatedAt: 1, ...extra })
        .returning(),
    );
    for (const inboundId of inboundIds)
      await conn.write((d) => d.insert(clientInbounds).values({ clientId: row!.id, inboundId }));
    return row!.id;
  }

  it("maps every field and lists each inbound's enabled clients in client id order", async () => {
    const a = await inbound('in-a', 41001);
    const b = await inbound('in-b', 41002);
    const off = await inbound('in-off', 41003, { enable: false });
    const [node] = await conn.write((d) =>
      d
        .insert(conn.t.nodes)
        .values({ name: 'n1', address: 'n1.example', port: 443, createdAt: 1, updatedAt: 1 })
        .returning(),
    );
    const remote = await inbound('in-node', 41004, { nodeId: node!.id });
    // Attached in an order that differs from the id order of the clients.
    await client('z-first@x', [b, a, off, remote], {
      password: 'p"w\\1',
      auth: 'au',
      flow: 'xtls-rprx-vision',
      security: 'aes-128-gcm',
      method: 'chacha20-ietf-poly1305',
      reverse: JSON.stringify({ tag: 'rev-z' }),
    });
    await client('disabled@x', [a, b], { enable: false });
    await client('m-second@x', [a]);
    await client('a-third@x', [b, a]);

    const view = await store.coreView.load();
    expect(view.inbounds.map((i) => i.tag)).toEqual(['in-a', 'in-b']);
    expect(view.clients.get(a)!.map((c) => c.email)).toEqual(['z-first@x', 'm-second@x', 'a-third@x']);
    expect(view.clients.get(b)!.map((c) => c.email)).toEqual(['z-first@x', 'a-third@x']);
    expect(view.clients.has(off)).toBe(false);
    expect(view.clients.has(remote)).toBe(false);
    expect(view.clients.get(a)![0]).toEqual({
      email: 'z-first@x',
      uuid: 'uuid-z-first@x',
      password: 'p"w\\1',
      auth: 'au',
      flow: 'xtls-rprx-vision',
      security: 'aes-128-gcm',
      method: 'chacha20-ietf-poly1305',
      reverse: { tag: 'rev-z' },
      enable: true,
    });
    expect(view.clients.get(a)![1]).toMatchObject({ email: 'm-second@x', password: '', reverse: null, enable: true });
  });

  it('an inbound without clients has an empty list', async () => {
    const a = await inbound('in-a', 41001);
    const view = await store.coreView.load();
    expect(view.clients.get(a)).toEqual([]);
  });
});

describe.each(testDatabases().filter((d) => d.name === 'pg'))('client_traffics storage on $name', (db) => {
  let store: Store;
  let conn: Connection;
  beforeAll(async () => {
    ({ store, conn } = await freshStoreAndConn(db));
  });
  afterAll(async () => {
    await store?.close();
    await conn?.close();
  });

  it('leaves half of each page free for HOT updates by the traffic tick (fillfactor 50)', async () => {
    const [row] = await conn.all<{ reloptions: string[] | null }>(
      sql`SELECT reloptions FROM pg_class WHERE relname = 'client_traffics'`,
    );
    expect(row!.reloptions).toContain('fillfactor=50');
    // SET LOCAL in the tick's transaction does not leak into the session.
    await conn.tx(async (tx) => {
      await tx.exec(sql`INSERT INTO client_traffics (email) VALUES ('a@x')`);
    });
    await store.traffic.applyDeltas({ clients: [{ email: 'a@x', up: 3, down: 4 }], inbounds: [], outbounds: [] }, 5000);
    const [t] = await conn.all<{ up: unknown; down: unknown }>(
      sql`SELECT up, down FROM client_traffics WHERE email = 'a@x'`,
    );
    expect([Number(t!.up), Number(t!.down)]).toEqual([3, 4]);
  });

  it('has a hash index on email for the inbounds/get join (migration 0006)', async () => {
    const rows = await conn.all<{ indexdef: string }>(
      sql`SELECT indexdef FROM pg_indexes WHERE tablename = 'client_traffics'`,
    );
    expect(rows.map((r) => r.indexdef)).toContainEqual(expect.stringMatching(/USING hash \(email\)/));
  });
});
