// Free-form input that used to be stored and then hurt: JSON nested 2,000 levels deep (every later config build
// failed with a stack overflow) and strings that are not valid Unicode (a lone surrogate was stored as U+FFFD
// while the answer said the email was in use). Both are refused at validation, naming the field, storing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';

const I = '/panel/api/inbounds';
const C = '/panel/api/clients';

/** An object nested `depth` levels: {"a":{"a":…{}}}. */
const nested = (depth: number): Record<string, unknown> => {
  let v: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe.each(testDatabases())('input limits on $name', (db) => {
  let t: TestApp;
  let s: Session;
  const post = (path: string, body?: unknown, headers?: Record<string, string>) =>
    call(t, 'POST', path, body, s, headers);
  const inboundCount = async () => (await call(t, 'GET', `${I}/list`, undefined, s)).json.obj.length as number;
  const emails = async () =>
    ((await call(t, 'GET', `${C}/list`, undefined, s)).json.obj as { email: string }[]).map((c) => c.email);
  let inboundId: number;

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    const r = await post(`${I}/add`, {
      port: 31001,
      protocol: 'vless',
      remark: 'base',
      settings: { decryption: 'none' },
    });
    expect(r.json.success).toBe(true);
    inboundId = r.json.obj.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses inbound settings nested 2,000 levels deep, as an object or JSON text, and the config still builds', async () => {
    const before = await inboundCount();
    const deep = { decryption: 'none', x: nested(2000) };
    for (const settings of [deep, JSON.stringify(deep)]) {
      const r = await post(`${I}/add`, { port: 31002, protocol: 'vless', remark: 'deep', settings });
      expect(r.json.success).toBe(false);
      expect(r.json.msg).toMatch(/^settings: nested deeper than 32 levels/);
    }
    const stream = await post(`${I}/update/${inboundId}`, {
      port: 31001,
      protocol: 'vless',
      remark: 'base',
      streamSettings: JSON.stringify({ network: 'tcp', x: nested(100) }),
    });
    expect(stream.json).toMatchObject({ success: false, msg: expect.stringMatching(/^streamSettings: nested deeper/) });
    expect(await inboundCount()).toBe(before);
    // A real config's depth is fine, and the running config still builds.
    const ok = await post(`${I}/add`, {
      port: 31003,
      protocol: 'vless',
      remark: 'fine',
      settings: { decryption: 'none', x: nested(20) },
    });
    expect(ok.json.success).toBe(true);
    const config = await call(t, 'GET', '/panel/api/server/getConfigJson', undefined, s);
    expect(config.json.success).toBe(true);
  });

  it('refuses a deep core template and a deep testOutbound body', async () => {
    const template = JSON.stringify({ inbounds: [], outbounds: [{ protocol: 'freedom', settings: nested(500) }] });
    const r = await post('/panel/core/update', new URLSearchParams({ coreSetting: template }));
    expect(r.json).toMatchObject({
      success: false,
      msg: expect.stringMatching(/^coreSetting: nested deeper than 32 levels/),
    });
    const probe = await post(
      '/panel/core/testOutbound',
      new URLSearchParams({ outbound: JSON.stringify(nested(100)) }),
    );
    expect(probe.json).toMatchObject({ success: false, msg: expect.stringMatching(/^outbound: nested deeper/) });
  });

  it('refuses a lone-surrogate email in JSON, in a JSON-encoded client and in a form, storing nothing', async () => {
    const before = await emails();
    const json = await post(`${C}/add`, `{"client":{"email":"y\\ud800"},"inboundIds":[${inboundId}]}`);
    expect(json.json).toEqual({ success: false, msg: 'client: not valid Unicode (a lone surrogate)', obj: null });
    const encoded = await post(
      `${C}/add`,
      new URLSearchParams({ client: '{"email":"z\\udc00x"}', inboundIds: `[${inboundId}]` }),
    );
    expect(encoded.json).toMatchObject({ success: false, msg: 'client: not valid Unicode (a lone surrogate)' });
    const form = await t.app.request(`${C}/add`, {
      method: 'POST',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/x-www-form-urlencoded' },
      body: `client=${encodeURIComponent('{"email":"w')}%ED%A0%80%22%7D&inboundIds=%5B${inboundId}%5D`,
    });
    expect(await form.json()).toMatchObject({ success: false, msg: 'client: not valid UTF-8' });
    expect(await emails()).toEqual(before);
    // A well-formed pair (an emoji) is stored exactly as sent.
    const emoji = await post(`${C}/add`, { client: { email: 'y\ud83d\ude00' }, inboundIds: [inboundId] });
    expect(emoji.json.success).toBe(true);
    expect(await emails()).toContain('y\u{1F600}');
  });

  it('refuses a JSON body that is not UTF-8, and a lone surrogate in a key', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"remark":"'), 0xff, ...new TextEncoder().encode('"}')]);
    const res = await t.app.request(`${I}/update/${inboundId}`, {
      method: 'POST',
      body: bytes,
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
    });
    expect(await res.json()).toMatchObject({ success: false, msg: 'body: not valid UTF-8' });
    const key = await post(`${I}/update/${inboundId}`, '{"settings":{"\\ud800":1}}');
    expect(key.json).toMatchObject({ success: false, msg: expect.stringMatching(/^settings: not valid Unicode/) });
  });
});
