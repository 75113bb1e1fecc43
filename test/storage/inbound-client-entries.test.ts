// attachedJson's lastClientId and clientEntriesJson (the entries a kept settings.clients text is patched with):
// the same entry text attachedJson builds, only for emails attached to the inbound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, testDatabases } from '../support/databases.js';
import type { Store } from '../../domain/ports/store.js';

describe.each(testDatabases())('inbound client entries on $name', (db) => {
  let store: Store;
  let a = 0;
  let b = 0;
  const project = { protocol: 'vless', flowEligible: true };
  const client = (
    email: string,
    over: { expiryTime?: number; reverse?: { tag: string } | null; comment?: string } = {},
  ) => ({
    email,
    subId: `s-${email}`,
    uuid: `u-${email}`,
    password: '',
    auth: '',
    flow: 'xtls-rprx-vision',
    security: '',
    method: '',
    totalGB: 5,
    expiryTime: over.expiryTime ?? 0,
    enable: true,
    limitIp: 0,
    tgId: 0,
    comment: over.comment ?? '',
    group: 'g',
    reverse: over.reverse ?? null,
    reset: 0,
    createdAt: 1,
    updatedAt: 2,
  });
  const inbound = async (port: number) =>
    (await store.inbounds.create({
      userId: 1,
      total: 0,
      remark: `e${port}`,
      enable: true,
      expiryTime: 0,
      listen: '',
      port,
      protocol: 'vless',
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp' },
      sniffing: {},
      tag: `e-${port}`,
      nodeId: null,
    }))!.id;

  beforeAll(async () => {
    store = await freshStore(db);
    a = await inbound(42001);
    b = await inbound(42002);
    await store.clients.insertMany([
      { row: client('one@x', { reverse: { tag: 'r1' } }), inboundIds: [a] },
      { row: client('"ü😀"@x', { comment: '},{"email":"x"' }), inboundIds: [a, b] },
      { row: client('later@x', { expiryTime: -86_400_000 }), inboundIds: [a] },
      { row: client('other@x'), inboundIds: [b] },
    ]);
  });
  afterAll(async () => {
    await store.close();
  });

  it('gives the entries attachedJson builds, in client id order, for the attached emails only', async () => {
    const all = await store.inbounds.attachedJson(a, project);
    const ids = (await store.clients.byEmails(['one@x', '"ü😀"@x', 'later@x'])).map((c) => c.id).sort((x, y) => x - y);
    expect(all.lastClientId).toBe(ids[ids.length - 1]);
    const entries = await store.inbounds.clientEntriesJson(a, project, [
      'later@x',
      'other@x',
      'missing@x',
      '"ü😀"@x',
      'one@x',
    ]);
    expect(entries.map((e) => e.email)).toEqual(['one@x', '"ü😀"@x', 'later@x']);
    expect(entries.map((e) => e.id)).toEqual(ids);
    expect(`[${entries.map((e) => e.json).join(',')}]`).toBe(all.clients);
    expect(entries.map((e) => e.delayedStart)).toEqual([false, false, true]);
    expect(await store.inbounds.clientEntriesJson(a, project, [])).toEqual([]);
    expect(await store.inbounds.clientEntriesJson(b, project, ['one@x'])).toEqual([]);
  });

  it('lastClientId is 0 for an inbound without clients', async () => {
    const empty = await inbound(42003);
    expect((await store.inbounds.attachedJson(empty, project)).lastClientId).toBe(0);
  });
});
