import { beforeEach, describe, expect, it } from 'vitest';
import { CoreSync } from '../../domain/core/sync.js';
import { buildCoreConfig } from '../../domain/core/builder.js';
import { defaultTemplate } from '../../domain/core/template.js';
import type { CoreClient, CoreInbound, CoreViewData, CoreViewRepo } from '../../domain/ports/core-view.js';
import type { Protocol } from '../../domain/inbounds/model.js';
import { FakeCore } from '../support/fake-core.js';

interface World {
  inbounds: CoreInbound[];
  clients: Map<string, { client: CoreClient; inboundIds: number[] }>;
}

const ib = (id: number, protocol: Protocol, extra: Partial<CoreInbound> = {}): CoreInbound => ({
  id,
  tag: `in-${id}`,
  protocol,
  enable: true,
  listen: '',
  port: 20000 + id,
  settings: {},
  streamSettings: {},
  sniffing: {},
  nodeId: null,
  ...extra,
});
const cl = (email: string, extra: Partial<CoreClient> = {}): CoreClient => ({
  email,
  uuid: `uuid-${email}`,
  password: `pw-${email}`,
  auth: '',
  flow: '',
  security: '',
  method: '',
  reverse: null,
  enable: true,
  ...extra,
});

function viewOf(w: World): CoreViewRepo {
  return {
    async load(): Promise<CoreViewData> {
      const inbounds = w.inbounds.filter((i) => i.enable && i.nodeId === null);
      const clients = new Map<number, CoreClient[]>(inbounds.map((i) => [i.id, []]));
      for (const { client, inboundIds } of w.clients.values()) {
        if (!client.enable) continue;
        for (const id of inboundIds) clients.get(id)?.push(client);
      }
      return { inbounds, clients, fallbacks: [] };
    },
    async clientsByEmails(emails) {
      return emails
        .map((e) => w.clients.get(e))
        .filter((x): x is NonNullable<typeof x> => !!x)
        .map((x) => ({ client: { ...x.client }, inboundIds: [...x.inboundIds] }));
    },
    async inboundTags() {
      return w.inbounds.map((i) => i.tag);
    },
    async clientReverseTags() {
      return [];
    },
  };
}

function setup(flavour: 'xray' | 'v2ray' = 'xray') {
  const w: World = { inbounds: [], clients: new Map() };
  const core = new FakeCore();
  core.current.flavour = flavour;
  const view = viewOf(w);
  let queue: Promise<unknown> = Promise.resolve();
  const reloads: string[] = [];
  const writes: number[] = [];
  const build = async () => buildCoreConfig(defaultTemplate(1), await view.load(), { flavour, apiPort: 1 });
  const sync: CoreSync = new CoreSync({
    view,
    core,
    build,
    reload: async (reason) => {
      reloads.push(reason);
      sync.reset(await build(), flavour);
    },
    enqueue: (fn) => {
      const n = queue.then(fn, fn);
      queue = n.catch(() => undefined);
      return n;
    },
    changed: () => writes.push(1),
  });
  const start = async () => {
    sync.reset(await build(), flavour);
    core.calls = [];
  };
  const put = (c: CoreClient, inboundIds: number[]) => w.clients.set(c.email, { client: c, inboundIds });
  return { w, core, sync, reloads, writes, start, put };
}

describe('core sync (live changes through HandlerService)', () => {
  let t: ReturnType<typeof setup>;
  beforeEach(() => {
    t = setup();
  });

  it('adds a new client to each attached running inbound, account type from the inbound protocol', async () => {
    t.w.inbounds.push(ib(1, 'vless'), ib(2, 'trojan'));
    await t.start();
    t.put(cl('a'), [1, 2]);
    await t.sync.clientsChanged(['a']);
    expect(t.core.ops('addUser')).toEqual([
      ['in-1', 'vless', { email: 'a', id: 'uuid-a', flow: undefined }],
      ['in-2', 'trojan', { email: 'a', password: 'pw-a', flow: undefined }],
    ]);
    expect(t.core.ops('restart')).toEqual([]);
    expect(t.writes.length).toBe(1);
  });

  it('is idempotent: the same event again changes nothing', async () => {
    t.w.inbounds.push(ib(1, 'vmess'));
    t.put(cl('a'), [1]);
    await t.start();
    await t.sync.clientsChanged(['a']);
    await t.sync.clientsChanged(['a']);
    expect(t.core.calls).toEqual([]);
  });

  it('removes a disabled or deleted client, and replaces a changed secret', async () => {
    t.w.inbounds.push(ib(1, 'vmess'), ib(2, 'vmess'));
    t.put(cl('a'), [1, 2]);
    t.put(cl('b'), [1]);
    t.put(cl('c'), [2]);
    await t.start();
    t.put(cl('a', { enable: false }), [1, 2]);
    t.w.clients.delete('b');
    t.put(cl('c', { uuid: 'new-uuid' }), [2]);
    await t.sync.clientsChanged(['a', 'b', 'c']);
    expect(t.core.ops('removeUser')).toEqual([
      ['in-1', 'a'],
      ['in-2', 'a'],
      ['in-1', 'b'],
      ['in-2', 'c'],
    ]);
    expect(t.core.ops('addUser')).toEqual([['in-2', 'vmess', { email: 'c', id: 'new-uuid', security: 'auto' }]]);
  });

  it('follows attach and detach', async () => {
    t.w.inbounds.push(ib(1, 'vless'), ib(2, 'vless'));
    t.put(cl('a'), [1]);
    await t.start();
    t.put(cl('a'), [2]);
    await t.sync.clientsChanged(['a']);
    expect(t.core.ops('removeUser')).toEqual([['in-1', 'a']]);
    expect(t.core.ops('addUser').map((a) => a[0])).toEqual(['in-2']);
  });

  it('ignores attachments to inbounds that do not run (disabled, on a node)', async () => {
    t.w.inbounds.push(ib(1, 'vless', { enable: false }), ib(2, 'vless', { nodeId: 7 }));
    await t.start();
    t.put(cl('a'), [1, 2]);
    await t.sync.clientsChanged(['a']);
    expect(t.core.calls).toEqual([]);
  });

  it('coalesces a burst of events into one pass', async () => {
    t.w.inbounds.push(ib(1, 'vmess'));
    await t.start();
    const all: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      t.put(cl(`u${i}`), [1]);
      all.push(t.sync.clientsChanged([`u${i}`]));
    }
    await Promise.all(all);
    expect(t.sync.stats.passes).toBe(1);
    expect(t.core.ops('addUser')).toHaveLength(50);
  });

  it('inbounds: disable removes, enable adds (with its clients), a changed inbound is replaced', async () => {
    t.w.inbounds.push(ib(1, 'vmess'), ib(2, 'vmess'));
    t.put(cl('a'), [1]);
    await t.start();
    t.w.inbounds[0]!.enable = false;
    await t.sync.inboundsChanged([1]);
    expect(t.core.ops('removeInbound')).toEqual([['in-1']]);
    t.core.calls = [];
    t.w.inbounds[0]!.enable = true;
    await t.sync.inboundsChanged([1]);
    expect(t.core.ops('addInbound')).toEqual([
      [
        expect.objectContaining({
          tag: 'in-1',
          settings: { clients: [{ id: 'uuid-a', security: 'auto', email: 'a' }] },
        }),
      ],
    ]);
    t.core.calls = [];
    t.w.inbounds[1]!.port = 30000;
    await t.sync.inboundsChanged([2]);
    expect(t.core.ops('removeInbound')).toEqual([['in-2']]);
    expect(t.core.ops('addInbound')[0]![0]).toMatchObject({ tag: 'in-2', port: 30000 });
    expect(t.core.ops('restart')).toEqual([]);
  });

  it('falls back to one full reload when a live call fails', async () => {
    t.w.inbounds.push(ib(1, 'vmess'));
    await t.start();
    t.core.addUser = async () => {
      throw new Error('boom');
    };
    t.put(cl('a'), [1]);
    t.put(cl('b'), [1]);
    await Promise.all([t.sync.clientsChanged(['a']), t.sync.clientsChanged(['b'])]);
    expect(t.reloads).toHaveLength(1);
    expect(t.reloads[0]).toMatch(/boom/);
  });

  it('does nothing while the core is stopped (the next start builds from the database)', async () => {
    t.w.inbounds.push(ib(1, 'vmess'));
    await t.start();
    t.core.current.state = 'stopped';
    t.put(cl('a'), [1]);
    await t.sync.clientsChanged(['a']);
    expect(t.core.calls).toEqual([]);
  });
});

describe('core sync under V2Ray', () => {
  it('a change on a single-user shadowsocks inbound replaces that inbound (no AddUser)', async () => {
    const t = setup('v2ray');
    t.w.inbounds.push(ib(1, 'shadowsocks', { settings: { method: 'aes-256-gcm' } }), ib(2, 'vmess'));
    t.put(cl('a'), [1]);
    t.put(cl('v'), [2]);
    await t.start();
    t.put(cl('a', { password: 'changed' }), [1]);
    await t.sync.clientsChanged(['a']);
    expect(t.core.ops('addUser')).toEqual([]);
    expect(t.core.ops('removeInbound')).toEqual([['in-1']]);
    expect(t.core.ops('addInbound')[0]![0]).toMatchObject({
      tag: 'in-1',
      settings: { password: 'changed', email: 'a' },
    });
  });

  it('a shadowsocks inbound waiting for its first client comes in when the client is added', async () => {
    const t = setup('v2ray');
    t.w.inbounds.push(ib(1, 'shadowsocks', { settings: { method: 'aes-256-gcm' } }));
    await t.start();
    t.put(cl('a'), [1]);
    await t.sync.clientsChanged(['a']);
    expect(t.core.ops('addInbound')[0]![0]).toMatchObject({ tag: 'in-1', settings: { password: 'pw-a' } });
  });
});
