// inbounds/get/:id keeps the `settings.clients` text of earlier reads (domain/inbounds/clients-text-cache.ts): a
// repeated read builds only `clientStats`, and after every kind of change the text is exactly JSON.stringify of
// the object path again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';

const B = '/panel/api/inbounds';
const C = '/panel/api/clients';

describe.each(testDatabases())('inbounds/get/:id with kept client texts on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let V = 0;
  let M = 0;
  /** withClients of every attachedJson call since the last look. */
  let built: boolean[] = [];
  /** The emails of every clientEntriesJson call since the last look. */
  let patched: string[][] = [];
  const post = async (path: string, body?: unknown) => {
    const r = await call(t, 'POST', path, body, s);
    expect(r.json.success, r.json.msg).toBe(true);
    return r.json.obj;
  };
  /** The text, checked against the object path; returns it parsed and whether it built the clients array. */
  const read = async (id: number) => {
    built = [];
    patched = [];
    const text = await t.services.inbounds.getJson(id);
    const rebuilt = built[0]!;
    expect(text === JSON.stringify(await t.services.inbounds.get(id)), 'getJson equals JSON.stringify(get)').toBe(true);
    return { obj: JSON.parse(text), rebuilt, patched };
  };
  const tick = async (clients: { email: string; up: number; down: number }[]) => {
    const at = t.clock.now();
    await t.store.traffic.applyDeltas({ clients, inbounds: [], outbounds: [] }, at);
    t.events.emit('traffic.tick', { at, inbounds: [], outbounds: [], clients, onlines: [] });
  };

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    const attachedJson = t.store.inbounds.attachedJson.bind(t.store.inbounds);
    t.store.inbounds.attachedJson = (id, project, withClients = true) => {
      built.push(withClients);
      return attachedJson(id, project, withClients);
    };
    const clientEntriesJson = t.store.inbounds.clientEntriesJson.bind(t.store.inbounds);
    t.store.inbounds.clientEntriesJson = (id, project, emails) => {
      patched.push(emails);
      return clientEntriesJson(id, project, emails);
    };
    V = (
      await post(`${B}/add`, {
        port: 32001,
        protocol: 'vless',
        settings: { decryption: 'none' },
        streamSettings: {
          network: 'tcp',
          security: 'reality',
          realitySettings: { show: false, dest: 'example.com:443' },
        },
      })
    ).id;
    M = (await post(`${B}/add`, { port: 32002, protocol: 'vmess', streamSettings: { network: 'tcp' } })).id;
    await post(
      `${C}/bulkCreate`,
      Array.from({ length: 30 }, (_, i) => ({
        client: { email: `k${i}@x`, flow: 'xtls-rprx-vision', group: 'team', comment: `c${i}`, totalGB: 2048 },
        inboundIds: [V, M],
      })),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a repeated read builds only clientStats, and a traffic tick shows at once', async () => {
    expect((await read(V)).rebuilt).toBe(true);
    expect((await read(V)).rebuilt).toBe(false);
    await tick([{ email: 'k3@x', up: 100, down: 50 }]);
    const { obj, rebuilt } = await read(V);
    expect(rebuilt).toBe(false);
    expect(obj.clientStats[3]).toMatchObject({ email: 'k3@x', up: 100, down: 50 });
    expect((await read(M)).rebuilt).toBe(true); // kept per inbound
    expect((await read(M)).rebuilt).toBe(false);
  });

  it.each([
    [
      'a client update',
      ['k1@x'],
      async () => {
        await post(`${C}/update/k1@x`, {
          email: 'k1@x',
          comment: 'changed',
          flow: 'xtls-rprx-vision',
          group: 'team',
          inboundIds: [V, M],
        });
      },
    ],
    [
      'a new client',
      ['new@x'],
      async () => {
        await post(`${C}/add`, { client: { email: 'new@x' }, inboundIds: [V] });
      },
    ],
    [
      'a detach',
      ['new@x'],
      async () => {
        await post(`${C}/new@x/detach`, { inboundIds: [V] });
      },
    ],
    [
      'a deletion',
      ['k5@x'],
      async () => {
        await post(`${C}/del/k5@x`);
      },
    ],
    [
      'a bulk adjustment',
      ['k2@x', 'k4@x'],
      async () => {
        await post(`${C}/bulkAdjust`, { emails: ['k2@x', 'k4@x'], addDays: 0, addBytes: 1024 });
      },
    ],
    [
      'a traffic reset',
      ['k6@x'],
      async () => {
        await post(`${C}/resetTraffic/k6@x`);
      },
    ],
    // the database's JSON of the email must be what the patch looks for
    [
      'a new client with quotes and non-ASCII in its email',
      ['"ü😀"@x'],
      async () => {
        await post(`${C}/add`, { client: { email: '"ü😀"@x' }, inboundIds: [V] });
      },
    ],
    [
      'its update',
      ['"ü😀"@x'],
      async () => {
        await post(`${C}/update/${encodeURIComponent('"ü😀"@x')}`, { email: '"ü😀"@x', comment: 'é', inboundIds: [V] });
      },
    ],
  ])('after %s only the changed entries are read and patched in', async (_, emails, change) => {
    await read(V);
    expect((await read(V)).rebuilt).toBe(false);
    await change();
    const after = await read(V); // equal to the object path, checked in read()
    expect(after.rebuilt).toBe(false);
    expect(after.patched).toEqual([emails]);
    expect((await read(V)).patched).toEqual([]); // patched once, kept
  });

  it.each([
    [
      'an attach of an older client',
      async () => {
        await post(`${C}/new@x/attach`, { inboundIds: [V] });
      },
    ],
    [
      'a rename',
      async () => {
        await post(`${C}/update/k7@x`, {
          email: 'k7-renamed@x',
          flow: 'xtls-rprx-vision',
          group: 'team',
          inboundIds: [V, M],
        });
      },
    ],
    [
      'a group rename (more clients than a patch takes)',
      async () => {
        await post(`${C}/groups/rename`, { oldName: 'team', newName: 'crew' });
      },
    ],
    [
      'an inbound change (flow no longer eligible)',
      async () => {
        await post(`${B}/update/${V}`, {
          port: 32001,
          protocol: 'vless',
          settings: { decryption: 'none' },
          streamSettings: { network: 'ws' },
        });
      },
    ],
  ])('after %s the clients array is built again', async (_, change) => {
    await read(V);
    expect((await read(V)).rebuilt).toBe(false);
    await change();
    expect((await read(V)).rebuilt).toBe(true);
  });

  it('the change shows: comment, group, quota, flow', async () => {
    const { obj } = await read(V);
    const byEmail = new Map(obj.settings.clients.map((c: { email: string }) => [c.email, c]));
    expect(byEmail.get('k1@x')).toMatchObject({ comment: 'changed', group: 'crew', flow: '' });
    expect(byEmail.get('k2@x')).toMatchObject({ totalGB: 3072 });
    expect(byEmail.get('new@x')).toMatchObject({ email: 'new@x' });
    expect(byEmail.has('k5@x')).toBe(false);
    expect(byEmail.has('k7@x')).toBe(false);
    expect(byEmail.get('k7-renamed@x')).toMatchObject({ group: 'crew' });
    expect(byEmail.get('"ü😀"@x')).toMatchObject({ comment: 'é' });
  });

  it('a tick that starts a delayed expiry builds the clients array again; other ticks do not', async () => {
    await post(`${C}/add`, { client: { email: 'later@x', expiryTime: -3 * 86_400_000 }, inboundIds: [M] });
    expect((await read(M)).obj.settings.clients.find((c: { email: string }) => c.email === 'later@x').expiryTime).toBe(
      -3 * 86_400_000,
    );
    expect((await read(M)).rebuilt).toBe(false);
    await tick([{ email: 'later@x', up: 1, down: 1 }]);
    const { obj, rebuilt } = await read(M);
    expect(rebuilt).toBe(true);
    expect(obj.settings.clients.find((c: { email: string }) => c.email === 'later@x').expiryTime).toBe(
      t.clock.now() + 3 * 86_400_000,
    );
    await tick([{ email: 'later@x', up: 1, down: 1 }]);
    expect((await read(M)).rebuilt).toBe(false); // no client of M waits for its first traffic any more
  });

  it('a database import drops every kept text', async () => {
    await read(M);
    expect((await read(M)).rebuilt).toBe(false);
    t.services.inbounds.dropCachedText();
    expect((await read(M)).rebuilt).toBe(true);
  });
});
