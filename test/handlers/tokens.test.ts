// /panel/setting/apiTokens: list, create, delete, setEnabled.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';

// Logins cost a deliberate PBKDF2 (600,000 iterations); on a loaded 2-core machine they are slow.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

describe.each(testDatabases())('API tokens on $name', (db) => {
  let t: TestApp;
  let s: Session;
  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates tokens from a cryptographic random source, at least 32 characters, createdAt in seconds', async () => {
    const a = await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'ci' }, s);
    const b = await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'backup' }, s);
    expect(a.json.success).toBe(true);
    expect(a.json.obj).toMatchObject({
      id: expect.any(Number),
      name: 'ci',
      enabled: true,
      createdAt: Math.floor(t.clock.now() / 1000),
    });
    for (const tok of [a.json.obj.token, b.json.obj.token]) expect(tok).toMatch(/^[A-Za-z0-9]{32,}$/);
    expect(a.json.obj.token).not.toBe(b.json.obj.token);
    const list = await call(t, 'GET', '/panel/setting/apiTokens', undefined, s);
    expect(list.json.obj.map((x: { name: string }) => x.name)).toEqual(['ci', 'backup']);
    expect(list.json.obj[0]).toEqual(a.json.obj);
  });

  it('keeps names unique and 1 to 64 characters', async () => {
    const dup = await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'ci' }, s);
    expect(dup.json.success).toBe(false);
    expect(dup.json.msg).toMatch(/already exists/);
    for (const name of ['', '   ', 'x'.repeat(65)]) {
      const r = await call(t, 'POST', '/panel/setting/apiTokens/create', { name }, s);
      expect(r.json.success, JSON.stringify(name)).toBe(false);
      expect(r.json.msg).toMatch(/1 to 64 characters/);
    }
    const missing = await call(t, 'POST', '/panel/setting/apiTokens/create', {}, s);
    expect(missing.json).toMatchObject({ success: false });
    expect(missing.json.msg).toMatch(/^name: /);
    expect((await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'y'.repeat(64) }, s)).json.success).toBe(
      true,
    );
    const names = (await t.store.tokens.list()).map((x) => x.name);
    expect(names.filter((n) => n === 'ci')).toHaveLength(1);
    expect(names).not.toContain('');
  });

  it('enables, disables and deletes by id; unknown ids and bad input give success=false', async () => {
    const { id } = (await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'toggle' }, s)).json.obj;
    expect(
      (await call(t, 'POST', `/panel/setting/apiTokens/setEnabled/${id}`, { enabled: false }, s)).json.success,
    ).toBe(true);
    expect((await t.store.tokens.byName('toggle'))!.enabled).toBe(false);
    // Form bodies send strings.
    expect(
      (await call(t, 'POST', `/panel/setting/apiTokens/setEnabled/${id}`, new URLSearchParams({ enabled: 'true' }), s))
        .json.success,
    ).toBe(true);
    expect((await t.store.tokens.byName('toggle'))!.enabled).toBe(true);
    expect(
      (await call(t, 'POST', `/panel/setting/apiTokens/setEnabled/${id}`, { enabled: 'perhaps' }, s)).json,
    ).toMatchObject({ success: false });
    expect(
      (await call(t, 'POST', '/panel/setting/apiTokens/setEnabled/99999', { enabled: true }, s)).json,
    ).toMatchObject({ success: false, msg: 'token 99999 not found' });
    expect((await call(t, 'POST', '/panel/setting/apiTokens/delete/abc', undefined, s)).json.msg).toMatch(/^id: /);
    expect((await call(t, 'POST', `/panel/setting/apiTokens/delete/${id}`, undefined, s)).json.success).toBe(true);
    expect((await call(t, 'POST', `/panel/setting/apiTokens/delete/${id}`, undefined, s)).json).toMatchObject({
      success: false,
    });
    expect(await t.store.tokens.byName('toggle')).toBeNull();
  });

  it('a Bearer token can manage tokens too (no CSRF)', async () => {
    const { token } = (await call(t, 'POST', '/panel/setting/apiTokens/create', { name: 'automation' }, s)).json.obj;
    const r = await call(
      t,
      'POST',
      '/panel/setting/apiTokens/create',
      { name: 'made-by-automation' },
      { bearer: token },
    );
    expect(r.json.success).toBe(true);
    expect(
      (await call(t, 'GET', '/panel/setting/apiTokens', undefined, { bearer: token })).json.obj.some(
        (x: { name: string }) => x.name === 'made-by-automation',
      ),
    ).toBe(true);
  });
});
