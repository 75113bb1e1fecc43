// GET /panel/setting/overridden (beyond the spec, for the settings page): the keys an environment variable
// overrides, empty without overrides.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type TestApp } from '../support/app.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

describe.each(testDatabases())('overridden settings on $name', (db) => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('lists the overridden keys, and none without overrides; needs a session or token', async () => {
    const plain = await createTestApp(db);
    apps.push(plain);
    const s = await login(plain);
    expect((await call(plain, 'GET', '/panel/setting/overridden', undefined, s)).json).toMatchObject({
      success: true,
      obj: [],
    });
    expect((await call(plain, 'GET', '/panel/setting/overridden')).status).toBe(404);

    const t = await createTestApp(db, { settingsOverrides: { webPort: 8443, subPort: 9443 } });
    apps.push(t);
    const r = await call(t, 'GET', '/panel/setting/overridden', undefined, await login(t));
    expect(r.json.success).toBe(true);
    expect([...r.json.obj].sort()).toEqual(['subPort', 'webPort']);
  });
});
