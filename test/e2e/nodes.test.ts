// Real core on the node: the central panel binds a VMess inbound to a second real panel (the node), the node's core
// serves it, a real v2ray client moves known bytes through it, the central panel shows them within 20 s; the node
// panel restarts mid-way and the sum stays right; the client hits its quota on the central panel and the node's
// core refuses it within 20 s; a traffic reset on the central panel lets it through again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addClient,
  addInbound,
  curlSocks,
  curlSocksEventually,
  eventually,
  killAll,
  startPanel,
  startTarget,
  testCoreBin,
  v2rayClient,
  vmessOutbound,
  type Panel,
  type ProxyClient,
  type Target,
} from './support/index.js';

const bin = testCoreBin();
const KB = 1024;
const MB = 1024 * KB;
const WITHIN = 20_000;

describe.skipIf(!bin)("a node-bound inbound served by the node's real core", () => {
  let central: Panel;
  let node: Panel;
  let target: Target;
  let client: ProxyClient;
  let nodeId = 0;
  let ib: { id: number; port: number };
  const env = { PANEL_TRAFFIC_INTERVAL_MS: '1000' };
  const traffic = async (email: string) =>
    (await central.api('GET', `/panel/api/clients/traffic/${encodeURIComponent(email)}`)).obj as {
      up: number;
      down: number;
    };

  beforeAll(async () => {
    target = await startTarget();
    node = await startPanel({ coreBin: bin!, env });
    central = await startPanel({ coreBin: bin!, env });
    const add = await central.api('POST', '/panel/api/nodes/add', {
      name: 'edge',
      scheme: 'http',
      address: '127.0.0.1',
      port: node.ports.panel,
      apiToken: node.token,
      allowPrivateAddress: true,
    });
    expect(add.success).toBe(true);
    nodeId = add.obj.id;
    expect((await central.api('POST', `/panel/api/nodes/probe/${nodeId}`)).obj.status).toBe('online');
  }, 60_000);
  afterAll(async () => {
    await client?.stop();
    await central?.stop();
    await node?.stop();
    await target?.close();
    await killAll();
  });

  it("places the inbound and its client on the node; the node's core carries the bytes and the central panel counts them", async () => {
    const created = await addInbound(central, { protocol: 'vmess' });
    expect(
      (
        await central.api('POST', `/panel/api/inbounds/update/${created.id}`, {
          remark: 'on-node',
          enable: true,
          listen: '127.0.0.1',
          port: created.port,
          protocol: 'vmess',
          expiryTime: 0,
          total: 0,
          settings: {},
          streamSettings: { network: 'tcp', security: 'none' },
          sniffing: {},
          nodeId,
        })
      ).success,
    ).toBe(true);
    ib = { id: created.id, port: created.port };
    const c = await addClient(central, 'n1@e2e', ib.id, { totalGB: 5 * MB });
    await eventually(async () => (await node.api('GET', '/panel/api/clients/get/n1%40e2e')).success, WITHIN, 200);
    const onNode = (await node.api('GET', '/panel/api/inbounds/list')).obj.find((x: any) => x.port === ib.port);
    expect(onNode).toMatchObject({ protocol: 'vmess', remark: 'on-node' });
    client = await v2rayClient(bin!, vmessOutbound(ib.port, c.uuid));
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`), 15_000);
    expect(d.bytes).toBe(MB);
    const t0 = Date.now();
    await eventually(async () => (await traffic('n1@e2e')).down >= MB, WITHIN, 250);
    expect(Date.now() - t0).toBeLessThanOrEqual(WITHIN);
    const t = await traffic('n1@e2e');
    expect(t.down).toBeLessThan(MB + 64 * KB);
  }, 90_000);

  it('counts right across a restart of the node panel (no double count)', async () => {
    const before = await traffic('n1@e2e');
    const ports = node.ports;
    const dataDir = node.dataDir;
    await node.stop('SIGTERM', true);
    node = await startPanel({ coreBin: bin!, env, dataDir, ports });
    // The central panel sees it again (the heartbeat is 30 s; probe now) and the node's core serves again.
    await eventually(
      async () => (await central.api('POST', `/panel/api/nodes/probe/${nodeId}`)).obj.status === 'online',
      WITHIN,
      500,
    );
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`), 20_000);
    expect(d.bytes).toBe(MB);
    await eventually(async () => (await traffic('n1@e2e')).down >= before.down + MB, WITHIN, 250);
    // Two more pulls: nothing added twice.
    await new Promise((r) => setTimeout(r, 21_000));
    const after = await traffic('n1@e2e');
    expect(after.down).toBeGreaterThanOrEqual(before.down + MB);
    expect(after.down).toBeLessThan(before.down + MB + 64 * KB);
  }, 120_000);

  it("the quota reached on the central panel is refused by the node's core; a central reset lets it through again", async () => {
    // 2 MB more on the central counter than on the node's (as if served elsewhere), and a quota 512 KB above it:
    // the next MB crosses it on the central panel only, so the refusal must come from the central push.
    const now = await traffic('n1@e2e');
    await central.api('POST', '/panel/api/clients/updateTraffic/n1%40e2e', {
      upload: now.up + 2 * MB,
      download: now.down,
    });
    await central.api('POST', '/panel/api/clients/update/n1%40e2e', {
      email: 'n1@e2e',
      totalGB: now.up + now.down + 2 * MB + 512 * KB,
    });
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`), 10_000);
    expect(d.bytes).toBe(MB);
    const moved = Date.now();
    await eventually(
      async () => !(await curlSocks(client.socksPort, target.url('/bytes/1000'), 3)).ok,
      WITHIN + 10_000,
      250,
    );
    expect(Date.now() - moved).toBeLessThanOrEqual(WITHIN + 10_000);
    expect((await central.api('GET', '/panel/api/clients/get/n1%40e2e')).obj.client.enable).toBe(false);
    expect((await node.api('GET', '/panel/api/clients/get/n1%40e2e')).obj.client.enable).toBe(false);
    expect((await central.api('POST', '/panel/api/clients/resetTraffic/n1%40e2e')).success).toBe(true);
    const back = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`), WITHIN);
    expect(back.bytes).toBe(MB);
    await eventually(async () => (await traffic('n1@e2e')).down >= MB, WITHIN, 250);
    expect((await traffic('n1@e2e')).down).toBeLessThan(MB + 64 * KB);
  }, 120_000);
});
