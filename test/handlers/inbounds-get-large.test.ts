// inbounds/get/:id on an inbound large enough that PostgreSQL builds its client arrays in two halves (two
// statements over client id ranges, see storage/repos/inbounds.ts pgAttachedJson): the text must be exactly
// JSON.stringify of the object path, with awkward values on both sides of the split and at its edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';

const B = '/panel/api/inbounds';
const C = '/panel/api/clients';
const COUNT = 2600;

describe.each(testDatabases())('inbounds/get/:id with %s clients on $name'.replace('%s', String(COUNT)), (db) => {
  let t: TestApp;
  let s: Session;
  const ids: number[] = [];

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    const specs = [
      {
        port: 31001,
        protocol: 'vless',
        settings: { decryption: 'none' },
        streamSettings: {
          network: 'tcp',
          security: 'reality',
          realitySettings: { show: false, dest: 'example.com:443' },
        },
      },
      { port: 31002, protocol: 'vmess', streamSettings: { network: 'tcp' } },
      { port: 31003, protocol: 'shadowsocks', settings: { method: 'aes-256-gcm', network: 'tcp,udp' } },
    ];
    for (const spec of specs) {
      const r = await call(t, 'POST', `${B}/add`, spec, s);
      expect(r.json.success, r.json.msg).toBe(true);
      ids.push(r.json.obj.id);
    }
    const awkward = (i: number) => ({
      comment: `say "hi" \\ \u0001 tab\t ünï 😀 #${i}`,
      group: `G "${i}"`,
      flow: 'xtls-rprx-vision',
      reverse: { tag: `rev-${i}` },
      enable: false,
      security: 'aes-128-gcm',
      tgId: 42,
      limitIp: 3,
      reset: 7,
      totalGB: 5,
      expiryTime: -86400000,
    });
    const odd = new Set([0, 1, COUNT / 2 - 1, COUNT / 2, COUNT / 2 + 1, COUNT - 2, COUNT - 1]);
    const bulk = Array.from({ length: COUNT }, (_, i) => ({
      client: { email: `big-${String(i).padStart(5, '0')}@x`, ...(odd.has(i) ? awkward(i) : {}) },
      inboundIds: i % 7 === 3 ? [ids[0]] : ids, // not every client on every inbound
    }));
    for (let i = 0; i < bulk.length; i += 1000) {
      const r = await call(t, 'POST', `${C}/bulkCreate`, bulk.slice(i, i + 1000), s);
      expect(r.json.success, r.json.msg).toBe(true);
    }
    await t.store.traffic.applyDeltas(
      {
        clients: [
          { email: 'big-00000@x', up: 7, down: 9 },
          { email: `big-${String(COUNT / 2).padStart(5, '0')}@x`, up: 1, down: 2 },
        ],
        inbounds: [],
        outbounds: [],
      },
      t.clock.now(),
    );
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('returns exactly JSON.stringify(get(id)) for every protocol, in client id order', async () => {
    for (const id of ids) {
      const text = await t.services.inbounds.getJson(id);
      expect(text === JSON.stringify(await t.services.inbounds.get(id)), `inbound ${id}`).toBe(true);
      const obj = JSON.parse(text);
      const emails = obj.clientStats.map((x: { email: string }) => x.email);
      expect(emails).toEqual([...emails].sort());
      expect(emails.length).toBe(id === ids[0] ? COUNT : COUNT - Math.ceil((COUNT - 3) / 7));
      expect(obj.settings.clients.map((x: { email: string }) => x.email)).toEqual(emails);
    }
    const r = await call(t, 'GET', `${B}/get/${ids[0]}`, undefined, s);
    expect(r.json.obj.clientStats[0]).toMatchObject({ email: 'big-00000@x', up: 7, down: 9 });
    expect(r.json.obj.settings.clients[0]).toMatchObject({
      flow: 'xtls-rprx-vision',
      reverse: { tag: 'rev-0' },
      comment: 'say "hi" \\ \u0001 tab\t ünï 😀 #0',
    });
  }, 60_000);

  it('lists clients in client id order, not in the order they were attached', async () => {
    const r = await call(
      t,
      'POST',
      `${B}/add`,
      { port: 31004, protocol: 'vless', settings: { decryption: 'none' }, streamSettings: { network: 'ws' } },
      s,
    );
    expect(r.json.success, r.json.msg).toBe(true);
    const late = r.json.obj.id;
    // newest client first: the link rows are written in the reverse of client id order
    const picked = [COUNT - 1, COUNT / 2 + 1, COUNT / 2, 7, 0].map((i) => `big-${String(i).padStart(5, '0')}@x`);
    for (const email of picked) {
      const a = await call(t, 'POST', `${C}/${encodeURIComponent(email)}/attach`, { inboundIds: [late] }, s);
      expect(a.json.success, a.json.msg).toBe(true);
    }
    const text = await t.services.inbounds.getJson(late);
    expect(text === JSON.stringify(await t.services.inbounds.get(late))).toBe(true);
    const obj = JSON.parse(text);
    expect(obj.settings.clients.map((x: { email: string }) => x.email)).toEqual([...picked].reverse());
    expect(obj.clientStats.map((x: { email: string }) => x.email)).toEqual([...picked].reverse());
  });
});
