import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, testDatabases } from '../support/databases.js';
import type { Store } from '../../domain/ports/store.js';

describe.each(testDatabases())('auth storage on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await freshStore(db);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('creates the admin and bumps the session version when the credential changes', async () => {
    expect(await store.users.first()).toBeNull();
    const u = await store.users.create('admin', 'hash1');
    expect(u).toMatchObject({ username: 'admin', sessionVersion: 1 });
    const changed = await store.users.setCredential(u.id, 'root', 'hash2');
    expect(changed).toMatchObject({ username: 'root', passwordHash: 'hash2', sessionVersion: 2 });
    expect(await store.users.first()).toEqual(changed);
  });

  it('stores settings as JSON values and overwrites keys', async () => {
    await store.settings.setMany({ webPort: 2053, subPath: '/sub/', subEnable: true });
    await store.settings.setMany({ webPort: 8443 });
    expect(await store.settings.all()).toEqual({ webPort: 8443, subPath: '/sub/', subEnable: true });
    expect(await store.settings.get('missing')).toBeUndefined();
  });

  it('keeps token names unique and toggles tokens', async () => {
    const t = await store.tokens.create({ name: 'ci', token: 'x'.repeat(40), enabled: true, createdAt: 1 });
    expect(t).toMatchObject({ name: 'ci', enabled: true });
    expect(await store.tokens.create({ name: 'ci', token: 'y'.repeat(40), enabled: true, createdAt: 2 })).toBeNull();
    expect(await store.tokens.setEnabled(t!.id, false)).toBe(true);
    expect((await store.tokens.byToken('x'.repeat(40)))?.enabled).toBe(false);
    expect(await store.tokens.remove(t!.id)).toBe(true);
    expect(await store.tokens.remove(t!.id)).toBe(false);
    expect(await store.tokens.byToken('x'.repeat(40))).toBeNull();
  });

  it('rolls a failed transaction back', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.settings.setMany({ rolledBack: 1 });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.settings.get('rolledBack')).toBeUndefined();
  });

  it('returns null for unknown users and refuses to change a missing one', async () => {
    expect(await store.users.byId(9999)).toBeNull();
    await expect(store.users.setCredential(9999, 'x', 'y')).rejects.toThrow();
  });

  it('round-trips every JSON value type through settings', async () => {
    const values = {
      aBool: false,
      aNum: 12.5,
      aBig: 2 ** 40,
      aStr: 'päñél "quoted"',
      anObj: { x: [1, 'two', null] },
      aNull: null,
      empty: '',
    };
    await store.settings.setMany(values);
    const all = await store.settings.all();
    for (const [k, v] of Object.entries(values)) {
      expect(all[k], k).toEqual(v);
      expect(await store.settings.get(k), k).toEqual(v);
    }
  });

  it('lists tokens in creation order and finds them by name and token', async () => {
    const a = await store.tokens.create({
      name: 'first',
      token: 'a'.repeat(48),
      enabled: true,
      createdAt: 1_700_000_000,
    });
    const b = await store.tokens.create({
      name: 'second',
      token: 'b'.repeat(48),
      enabled: false,
      createdAt: 1_700_000_001,
    });
    const names = (await store.tokens.list()).map((x) => x.name);
    expect(names.indexOf('first')).toBeLessThan(names.indexOf('second'));
    expect(await store.tokens.byName('second')).toEqual(b);
    expect(await store.tokens.byToken('a'.repeat(48))).toEqual(a);
    expect(b).toMatchObject({ enabled: false, createdAt: 1_700_000_001 });
    // The token value is unique too.
    expect(await store.tokens.create({ name: 'third', token: 'a'.repeat(48), enabled: true, createdAt: 1 })).toBeNull();
    expect(await store.tokens.setEnabled(99999, true)).toBe(false);
  });

  it('serialises concurrent writes and transactions without busy errors', async () => {
    const writes = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0
        ? store.transaction(async (tx) => {
            await tx.settings.setMany({ [`tx${i}a`]: i });
            await tx.settings.setMany({ [`tx${i}b`]: i });
          })
        : i % 2 === 0
          ? store.settings.setMany({ [`w${i}`]: i })
          : store.tokens.create({
              name: `concurrent-${i}`,
              token: `tok${i}`.padEnd(40, 'z'),
              enabled: true,
              createdAt: i,
            }),
    );
    await Promise.all(writes);
    const all = await store.settings.all();
    expect(all.tx0a).toBe(0);
    expect(all.tx36b).toBe(36);
    expect(all.w38).toBe(38);
    expect((await store.tokens.list()).filter((x) => x.name.startsWith('concurrent-'))).toHaveLength(20);
  });

  it('reads inside a transaction see its own writes; others see them after commit', async () => {
    await store.transaction(async (tx) => {
      await tx.settings.setMany({ visible: 'yes' });
      expect(await tx.settings.get('visible')).toBe('yes');
    });
    expect(await store.settings.get('visible')).toBe('yes');
  });
});
