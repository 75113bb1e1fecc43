// The typed client: hc<PanelApp> (hono/client) over the panel app, as a script or the browser UI uses it.
// Also: a client deleted with keepTraffic leaves counters that GET /clients/traffic/:email still returns.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hc } from 'hono/client';
import type { PanelApp } from '../../handlers/app.js';
import { testDatabases } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/app.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

describe.each(testDatabases())('typed client on $name', (db) => {
  let t: TestApp;
  let api: ReturnType<typeof hc<PanelApp>>;
  let inboundId: number;

  beforeAll(async () => {
    t = await createTestApp(db);
    const bearer = (await t.services.tokens.create('typed')).token;
    api = hc<PanelApp>('http://panel.test/', {
      fetch: (input: RequestInfo | URL, init?: RequestInit) => t.app.request(input, init),
      headers: { authorization: `Bearer ${bearer}` },
    });
    const res = await api.panel.api.inbounds.add.$post({
      json: {
        remark: 'typed',
        port: 24443,
        protocol: 'vless',
        settings: { decryption: 'none' },
        streamSettings: { network: 'tcp', security: 'none' },
      },
    });
    const body = await res.json();
    expect(body.success, body.msg).toBe(true);
    inboundId = body.obj!.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('adds and reads a client with typed params, bodies and answers', async () => {
    const added = await (
      await api.panel.api.clients.add.$post({
        json: { client: { email: 'typed@example.com', totalGB: 1024 }, inboundIds: [inboundId] },
      })
    ).json();
    expect(added.success, added.msg).toBe(true);
    expect(added.obj?.email).toBe('typed@example.com');
    const got = await (
      await api.panel.api.clients.get[':email'].$get({ param: { email: 'typed@example.com' } })
    ).json();
    expect(got.obj?.client.totalGB).toBe(1024);
    expect(got.obj?.inboundIds).toEqual([inboundId]);
  });

  it('answers a validation failure as the envelope naming the field', async () => {
    const res = await api.panel.api.clients.add.$post({
      json: { client: { email: 'bad@example.com', totalGB: -1 }, inboundIds: [inboundId] },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: false, msg: expect.stringMatching(/^client\.totalGB: /) });
  });

  it("keeps a deleted client's counters with keepTraffic=1, and GET /clients/traffic/:email returns them", async () => {
    const email = 'kept@example.com';
    const added = await api.panel.api.clients.add.$post({ json: { client: { email }, inboundIds: [inboundId] } });
    expect((await added.json()).success).toBe(true);
    const set = await api.panel.api.clients.updateTraffic[':email'].$post({
      param: { email },
      json: { upload: 700, download: 300 },
    });
    expect((await set.json()).success).toBe(true);
    const before = await (await api.panel.api.clients.traffic[':email'].$get({ param: { email } })).json();
    expect(before.obj).toMatchObject({ up: 700, down: 300 });
    const counters = { up: 700, down: 300 };

    const del = await (
      await api.panel.api.clients.del[':email'].$post({ param: { email }, query: { keepTraffic: '1' } })
    ).json();
    expect(del.success, del.msg).toBe(true);
    const after = await (await api.panel.api.clients.traffic[':email'].$get({ param: { email } })).json();
    expect(after).toMatchObject({ success: true, obj: { email, ...counters, total: 0, expiryTime: 0 } });

    // Without keepTraffic the row goes with the client.
    const other = 'dropped@example.com';
    await api.panel.api.clients.add.$post({ json: { client: { email: other }, inboundIds: [inboundId] } });
    await api.panel.api.clients.del[':email'].$post({ param: { email: other }, query: {} });
    const gone = await (await api.panel.api.clients.traffic[':email'].$get({ param: { email: other } })).json();
    expect(gone).toMatchObject({ success: false, msg: `client ${other} not found` });
  });
});
