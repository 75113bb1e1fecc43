// /panel/core/getOutboundsTraffic and /panel/core/resetOutboundsTraffic through app.request(), on both databases.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';

const P = '/panel/core';

describe.each(testDatabases())('core traffic routes on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let round = 0;
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);
  const outbounds = async () => (await call(t, 'GET', `${P}/getOutboundsTraffic`, undefined, s)).json;
  /** Moves `n` more bytes down on each outbound and ticks. */
  const move = async (n: number, tags = ['direct', 'blocked', 'proxy-eu']) => {
    round += n;
    t.core.stats = tags.flatMap((tag) => [
      { name: `outbound>>>${tag}>>>traffic>>>uplink`, value: round },
      { name: `outbound>>>${tag}>>>traffic>>>downlink`, value: round * 2 },
    ]);
    t.clock.advance(5000);
    await t.services.traffic.tick();
  };

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    await call(t, 'POST', `${P}/resetOutboundsTraffic`, form({ tag: '-alltags-' }), s);
  });

  it('getOutboundsTraffic: empty before any traffic, then up/down/total per outbound sorted by tag', async () => {
    const fresh = await createTestApp(db);
    try {
      const fs = await login(fresh);
      const r = await call(fresh, 'GET', `${P}/getOutboundsTraffic`, undefined, fs);
      expect(r.json).toEqual({ success: true, msg: '', obj: [] });
    } finally {
      await fresh.close();
    }
    await move(100);
    const r = await outbounds();
    expect(r.success).toBe(true);
    expect(r.obj.map((o: any) => o.tag)).toEqual(['blocked', 'direct', 'proxy-eu']);
    for (const o of r.obj) expect(o).toEqual({ tag: o.tag, up: 100, down: 200, total: 300 });
  });

  it('resetOutboundsTraffic (form) zeroes one tag; counting goes on from there', async () => {
    await move(10);
    const r = await call(t, 'POST', `${P}/resetOutboundsTraffic`, form({ tag: 'direct' }), s);
    expect(r.json).toMatchObject({ success: true, obj: { affected: 1 } });
    const after = (await outbounds()).obj;
    expect(after.find((o: any) => o.tag === 'direct')).toEqual({ tag: 'direct', up: 0, down: 0, total: 0 });
    expect(after.find((o: any) => o.tag === 'blocked')).toEqual({ tag: 'blocked', up: 10, down: 20, total: 30 });
    await move(5);
    expect((await outbounds()).obj.find((o: any) => o.tag === 'direct')).toEqual({
      tag: 'direct',
      up: 5,
      down: 10,
      total: 15,
    });
  });

  it('-alltags- resets every outbound; JSON bodies work too', async () => {
    await move(7);
    const r = await call(t, 'POST', `${P}/resetOutboundsTraffic`, { tag: '-alltags-' }, s);
    expect(r.json).toMatchObject({ success: true, obj: { affected: 3 } });
    expect((await outbounds()).obj.every((o: any) => o.total === 0)).toBe(true);
  });

  it('an unknown tag changes nothing and says so', async () => {
    await move(3);
    const before = JSON.stringify((await outbounds()).obj);
    const r = await call(t, 'POST', `${P}/resetOutboundsTraffic`, form({ tag: 'nope' }), s);
    expect(r.json).toMatchObject({ success: true, obj: { affected: 0 } });
    expect(r.json.msg).toContain('nope');
    expect(JSON.stringify((await outbounds()).obj)).toBe(before);
  });

  it('an empty or missing tag is refused, naming the field, and nothing is reset', async () => {
    await move(3);
    const before = JSON.stringify((await outbounds()).obj);
    for (const body of [form({ tag: '' }), form({}), { tag: 5 }, undefined]) {
      const r = await call(t, 'POST', `${P}/resetOutboundsTraffic`, body, s);
      expect(r.status).toBe(200);
      expect(r.json.success).toBe(false);
      expect(r.json.msg).toMatch(/tag/);
    }
    expect(JSON.stringify((await outbounds()).obj)).toBe(before);
  });

  it('needs authentication (404 without a session; 401 envelope for XHR)', async () => {
    expect((await call(t, 'GET', `${P}/getOutboundsTraffic`)).status).toBe(404);
    const xhr = await call(t, 'POST', `${P}/resetOutboundsTraffic`, form({ tag: '-alltags-' }), undefined, {
      'x-requested-with': 'XMLHttpRequest',
    });
    expect(xhr.status).toBe(401);
    expect(xhr.json.success).toBe(false);
  });

  it('a session without the CSRF token cannot reset', async () => {
    await move(2);
    const r = await call(t, 'POST', `${P}/resetOutboundsTraffic`, form({ tag: '-alltags-' }), {
      cookie: s.cookie,
      csrf: 'wrong',
    });
    expect(r.status).toBe(403);
    expect((await outbounds()).obj.some((o: any) => o.total > 0)).toBe(true);
  });
});
