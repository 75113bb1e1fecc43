// The subscription feed checked by real clients: the panel (node adapter) runs the real core with VMess, VLESS
// (ws), Trojan and Shadowsocks inbounds; /sub/:subid is fetched over HTTP and decoded; each link becomes a real
// client (v2ray from the link, ss-local from the ss:// link) that moves bytes to a local HTTP server through the
// panel's core. The same link with a wrong id, password, method, port or path must fail. Every JSON-subscription
// config passes `v2ray -test` and, run as it is, moves bytes too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, startPanel, testCoreBin, type Panel } from './support/index.js';
import {
  curlViaSocks,
  freePorts,
  isPortFree,
  parseLink,
  runV2ray,
  startProcess,
  targetServer,
  v2rayClientConfig,
  v2rayTest,
  waitForPort,
  type ParsedLink,
} from './subscription-support.js';

// The shared real-core harness: the BUILT panel started as a user starts it, PANEL_CORE_BIN = the test core.
const CORE_BIN = testCoreBin();
const skip = !CORE_BIN;
const UUID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const PASSWORD = 'pw-e2e/with+chars=@';

describe.skipIf(skip)('subscription links driven by real clients', () => {
  let panel: Panel;
  let target: Awaited<ReturnType<typeof targetServer>>;
  let links: string[] = [];
  let subUrl = '';
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    panel = await startPanel({ coreBin: CORE_BIN! });
    subUrl = `http://127.0.0.1:${panel.ports.sub}/`;
    target = await targetServer();
    const [vm, vl, tr, ss] = await freePorts(4);
    Object.assign(ports, { vmess: vm, vless: vl, trojan: tr, ss });
    const add = async (body: unknown) => {
      const r = await panel.api('POST', '/panel/api/inbounds/add', body);
      if (!r.success) throw new Error(`inbound add failed: ${r.msg}`);
      return r.obj.id as number;
    };
    const ids = [
      await add({
        protocol: 'vmess',
        port: vm,
        remark: 'VM',
        settings: {},
        streamSettings: { network: 'tcp', security: 'none' },
      }),
      await add({
        protocol: 'vless',
        port: vl,
        remark: 'VL',
        settings: { decryption: 'none' },
        streamSettings: { network: 'ws', security: 'none', wsSettings: { path: '/vl-path' } },
      }),
      await add({
        protocol: 'trojan',
        port: tr,
        remark: 'TR',
        settings: {},
        streamSettings: { network: 'tcp', security: 'none' },
      }),
      await add({
        protocol: 'shadowsocks',
        port: ss,
        remark: 'SS',
        settings: { method: 'aes-256-gcm', network: 'tcp,udp' },
        streamSettings: { network: 'tcp', security: 'none' },
      }),
    ];
    const r = await panel.api('POST', '/panel/api/clients/add', {
      client: { email: 'e2e-user', subId: 'e2e-sub', id: UUID, password: PASSWORD, enable: true },
      inboundIds: ids,
    });
    if (!r.success) throw new Error(`client add failed: ${r.msg}`);
    for (const p of [vm, vl, tr, ss]) await waitForPort(p!, 10_000);
    const res = await fetch(`${subUrl}sub/e2e-sub`);
    expect(res.status).toBe(200);
    links = Buffer.from(await res.text(), 'base64')
      .toString('utf8')
      .split('\n');
  }, 60_000);

  afterAll(async () => {
    await target?.close();
    await panel?.stop();
    await killAll();
  });

  const targetUrl = () => `http://127.0.0.1:${target.port}/data`;
  const linkOf = (scheme: string) => {
    const l = links.find((x) => x.startsWith(`${scheme}://`));
    expect(l, `${scheme} link in ${links.join(' | ')}`).toBeDefined();
    return parseLink(l!);
  };

  /** Runs a v2ray client built from the parsed link and fetches the target through it. */
  async function viaV2ray(l: ParsedLink, timeoutSec = 4): Promise<Buffer | null> {
    const [socks] = await freePorts(1);
    const client = await runV2ray(v2rayClientConfig(l, socks!), socks!);
    try {
      return await curlViaSocks(socks!, targetUrl(), timeoutSec);
    } finally {
      await client.stop();
    }
  }

  async function viaSsLocal(l: ParsedLink, timeoutSec = 4): Promise<Buffer | null> {
    const [local] = await freePorts(1);
    const p = await startProcess(
      'ss-local',
      ['-s', l.host, '-p', String(l.port), '-b', '127.0.0.1', '-l', String(local), '-k', l.secret, '-m', l.method!],
      local!,
    );
    try {
      return await curlViaSocks(local!, targetUrl(), timeoutSec);
    } finally {
      await p.stop();
    }
  }

  it('the feed has one link per inbound with the request host', () => {
    expect(links.map((l) => l.split('://')[0])).toEqual(['vmess', 'vless', 'trojan', 'ss']);
    for (const l of links) expect(parseLink(l).host).toBe('127.0.0.1');
    expect(linkOf('trojan').secret).toBe(PASSWORD);
    expect(linkOf('ss')).toMatchObject({ method: 'aes-256-gcm', secret: PASSWORD, port: ports.ss });
    expect(linkOf('vless')).toMatchObject({ network: 'ws', path: '/vl-path', secret: UUID });
  });

  for (const scheme of ['vmess', 'vless', 'trojan', 'ss'] as const) {
    it(`${scheme}: the link as given moves bytes through the core (v2ray client)`, async () => {
      const body = await viaV2ray(linkOf(scheme));
      expect(body?.equals(target.payload)).toBe(true);
    });
  }

  it('ss: ss-local with the decoded ss:// link moves bytes', async () => {
    const body = await viaSsLocal(linkOf('ss'));
    expect(body?.equals(target.payload)).toBe(true);
  });

  it('a wrong id, password, method, port or path fails', async () => {
    const [closedPort] = await freePorts(1);
    const wrong: [string, ParsedLink][] = [
      ['vmess id', { ...linkOf('vmess'), secret: '11111111-2222-4333-8444-555555555555' }],
      ['vless id', { ...linkOf('vless'), secret: '11111111-2222-4333-8444-555555555555' }],
      ['vless path', { ...linkOf('vless'), path: '/wrong-path' }],
      ['trojan password', { ...linkOf('trojan'), secret: `${PASSWORD}x` }],
      ['trojan port', { ...linkOf('trojan'), port: closedPort! }],
      ['ss password', { ...linkOf('ss'), secret: 'not-the-password' }],
      ['ss method', { ...linkOf('ss'), method: 'aes-128-gcm' }],
    ];
    for (const [what, l] of wrong) expect(await viaV2ray(l, 2), what).toBeNull();
    expect(await viaSsLocal({ ...linkOf('ss'), secret: 'not-the-password' }, 2), 'ss-local password').toBeNull();
    expect(await viaSsLocal({ ...linkOf('ss'), method: 'chacha20-ietf-poly1305' }, 2), 'ss-local method').toBeNull();
  }, 60_000);

  it('every JSON-subscription config passes v2ray -test and, run as it is, moves bytes', async () => {
    const r = await panel.api('POST', '/panel/setting/update', { subJsonEnable: true });
    expect(r.success).toBe(true);
    const res = await fetch(`${subUrl}json/e2e-sub`);
    expect(res.status).toBe(200);
    const configs = (await res.json()) as any[];
    expect(configs.map((c) => c.outbounds[0].protocol)).toEqual(['vmess', 'vless', 'trojan', 'shadowsocks']);
    for (const config of configs) {
      const tested = v2rayTest(config);
      expect(tested.code, `${config.remarks}: ${tested.output}`).toBe(0);
      // As it is: the config's own local ports (10808 socks, 10809 http). If another program holds them on this
      // machine, only the local inbound ports are moved; the outbound is untouched.
      const socksPort = config.inbounds[0].port as number;
      let run = config;
      let port = socksPort;
      if (!(await isPortFree(socksPort)) || !(await isPortFree(config.inbounds[1].port))) {
        const [a, b] = await freePorts(2);
        run = {
          ...config,
          inbounds: [
            { ...config.inbounds[0], port: a },
            { ...config.inbounds[1], port: b },
          ],
        };
        port = a!;
        console.log(
          `ports ${socksPort}/${config.inbounds[1].port} are taken here; running ${config.remarks} on ${a}/${b}`,
        );
      }
      const proc = await runV2ray(run, port);
      try {
        const body = await curlViaSocks(port, targetUrl(), 4);
        expect(body?.equals(target.payload), `${config.remarks} moved bytes`).toBe(true);
      } finally {
        await proc.stop();
      }
    }
  }, 60_000);

  it('the panel reports the same links', async () => {
    const r = await panel.api('GET', '/panel/api/clients/subLinks/e2e-sub');
    expect(r.obj).toEqual(links);
  });
});
