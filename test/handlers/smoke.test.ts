import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type TestApp } from '../support/app.js';

describe.each(testDatabases())('smoke on $name', (db) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(db);
  });
  afterAll(async () => {
    await t.close();
  });

  it('logs in and reads settings', async () => {
    const s = await login(t);
    const r = await call(t, 'POST', '/panel/setting/all', undefined, s);
    expect(r.json.success).toBe(true);
    expect(r.json.obj.webPort).toBe(2053);
  });
});
