import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { Hono } from 'hono';
import { testDatabases } from '../support/databases.js';
import { createTestApp, login, call, type TestApp, type Session } from '../support/app.js';
import { recordingDatabase, Seeder } from '../support/subscription-seed.js';
import { createSubscriptionApp } from '../../handlers/subscription-app.js';
import { DEFAULT_SETTINGS } from '../../domain/settings/schema.js';

const fromB64 = (s: string) => new TextDecoder().decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));
const UUID = '0f5b7a56-3f4f-4d55-9a3e-8f9d8c0b1a21';
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0); // createTestApp's manual clock

describe.each(testDatabases())('subscription server on $name', (base) => {
  let t: TestApp;
  let sub: Hono;
  let seed: Seeder;
  let session: Session;
  const ids: Record<string, number> = {};

  const get = async (path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const res = await sub.request(`http://sub.example.com:2096${path}`, { method, headers });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  const settings = (patch: Record<string, unknown>) => t.services.settings.update(patch);

  beforeAll(async () => {
    const db = recordingDatabase(base);
    t = await createTestApp(db);
    seed = await Seeder.open(db.url());
    sub = createSubscriptionApp({ services: t.services, clientIp: () => t.peer.ip });
    session = await login(t);
    ids.vmess = await seed.inbound({
      protocol: 'vmess',
      port: 20001,
      remark: 'VM',
      streamSettings: { network: 'ws', security: 'none', wsSettings: { path: '/vm' } },
    });
    ids.vless = await seed.inbound({ protocol: 'vless', port: 20002, remark: 'VL', listen: '198.51.100.20' });
    ids.trojan = await seed.inbound({ protocol: 'trojan', port: 20003, remark: 'TR' });
    ids.ss = await seed.inbound({
      protocol: 'shadowsocks',
      port: 20004,
      remark: 'SS',
      settings: { method: 'aes-256-gcm' },
    });
    ids.off = await seed.inbound({ protocol: 'vless', port: 20005, remark: 'OFF', enable: false });
    ids.socks = await seed.inbound({ protocol: 'socks', port: 20006, remark: 'SOCKS' });
    await seed.client(
      {
        email: 'alice',
        subId: 'sub-alice',
        uuid: UUID,
        password: 'pw/alice+=',
        method: 'aes-256-gcm',
        totalGB: 10_000,
        expiryTime: NOW + 86_400_000,
        up: 100,
        down: 200,
        lastOnline: Math.floor(NOW / 1000) - 30,
      },
      [ids.vmess!, ids.vless!, ids.trojan!, ids.ss!, ids.off!],
    );
    await seed.client(
      {
        email: 'alice-2',
        subId: 'sub-alice',
        uuid: crypto.randomUUID(),
        totalGB: 5_000,
        expiryTime: NOW + 3_600_000,
        up: 1,
        down: 2,
      },
      [ids.vless!],
    );
    await seed.client({ email: 'alice-off', subId: 'sub-alice', enable: false, totalGB: 1, up: 7, down: 8 }, [
      ids.trojan!,
    ]);
    await seed.client({ email: 'only-disabled-inbound', subId: 'sub-off', uuid: crypto.randomUUID() }, [ids.off!]);
    await seed.client(
      {
        email: 'depleted',
        subId: 'sub-depleted',
        uuid: crypto.randomUUID(),
        enable: false,
        trafficEnable: false,
        totalGB: 10,
        up: 10,
      },
      [ids.vless!],
    );
    await seed.client({ email: 'bob<script>', subId: 'sub-bob', uuid: crypto.randomUUID(), password: 'bobpw' }, [
      ids.trojan!,
      ids.socks!,
    ]);
  });
  afterAll(async () => {
    await seed?.close();
    await t?.close();
  });
  beforeEach(async () => {
    t.peer.ip = '203.0.113.7';
    await settings({
      subEnable: true,
      subPath: '/sub/',
      subJsonPath: '/json/',
      subClashPath: '/clash/',
      subJsonEnable: false,
      subClashEnable: false,
      subEncrypt: true,
      subTitle: '',
      subSupportUrl: '',
      subProfileUrl: '',
      subAnnounce: '',
      subEnableRouting: false,
      subRoutingRules: '',
      subURI: '',
      subDomain: '',
      subUpdates: 12,
      trustedProxyCIDRs: DEFAULT_SETTINGS.trustedProxyCIDRs,
    });
  });

  it('serves base64 links of the enabled clients on enabled inbounds, with the headers', async () => {
    const r = await get('/sub/sub-alice');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    const links = fromB64(r.text).split('\n');
    // alice: vmess, vless, trojan, ss (the disabled inbound is left out); alice-2: vless; alice-off: none
    expect(links).toHaveLength(5);
    expect(links.map((l) => l.split(':')[0])).toEqual(['vmess', 'vless', 'vless', 'trojan', 'ss']);
    expect(links[1]).toContain(`vless://${UUID}@198.51.100.20:20002?`); // routable listen wins
    expect(links[3]).toContain('trojan://pw%2Falice%2B%3D@sub.example.com:20003?'); // else the request host
    expect(links.some((l) => l.includes('alice-off'))).toBe(false);
    expect(r.headers.get('subscription-userinfo')).toBe(
      `upload=108; download=210; total=15001; expire=${(NOW + 3_600_000) / 1000}`,
    );
    expect(r.headers.get('profile-title')).toBe(`base64:${btoa('sub-alice')}`);
    expect(r.headers.get('profile-update-interval')).toBe('12');
    expect(r.headers.get('profile-web-page-url')).toBe('http://sub.example.com:2096/sub/sub-alice');
    expect(r.headers.get('routing-enable')).toBe('false');
    expect(r.headers.get('support-url')).toBeNull();
    expect(r.headers.get('announce')).toBeNull();
  });

  it('sets every optional header from settings', async () => {
    await settings({
      subTitle: 'My VPN ✓',
      subSupportUrl: 'https://t.me/support',
      subProfileUrl: 'https://example.com/me',
      subAnnounce: 'Maintenance at 03:00 ⚠',
      subEnableRouting: true,
      subRoutingRules: 'happ://routing/onadd/abc',
      subUpdates: 30,
    });
    const r = await get('/sub/sub-alice');
    const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
    expect(r.headers.get('profile-title')).toBe(`base64:${b64('My VPN ✓')}`);
    expect(r.headers.get('support-url')).toBe('https://t.me/support');
    expect(r.headers.get('profile-web-page-url')).toBe('https://example.com/me');
    expect(r.headers.get('announce')).toBe(`base64:${b64('Maintenance at 03:00 ⚠')}`);
    expect(r.headers.get('routing-enable')).toBe('true');
    expect(r.headers.get('routing')).toBe('happ://routing/onadd/abc');
    expect(r.headers.get('profile-update-interval')).toBe('30');
  });

  it('keeps header values ASCII whatever the settings hold', async () => {
    await settings({
      subSupportUrl: 'https://例え.jp/サポート',
      subEnableRouting: true,
      subRoutingRules: 'règles\tß\nnext',
    });
    const r = await get('/sub/sub-alice');
    expect(r.status).toBe(200);
    expect(r.headers.get('support-url')).toBe(
      `https://${encodeURIComponent('例え')}.jp/${encodeURIComponent('サポート')}`,
    );
    expect(r.headers.get('routing')).toBe(`r${encodeURIComponent('è')}gles%20${encodeURIComponent('ß')} next`);
  });

  it('serves plain links when subEncrypt is off', async () => {
    await settings({ subEncrypt: false });
    const r = await get('/sub/sub-alice');
    expect(r.text.split('\n')[0]).toMatch(/^vmess:\/\//);
  });

  it('answers HEAD with the headers and no body', async () => {
    const r = await get('/sub/sub-alice', {}, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers.get('subscription-userinfo')).toMatch(/^upload=108; download=210; total=15001; expire=\d+$/);
    expect((await get('/sub/nope', {}, 'HEAD')).status).toBe(404);
  });

  it('counts total=0 when any client is unlimited', async () => {
    const r = await get('/sub/sub-bob');
    expect(r.headers.get('subscription-userinfo')).toBe('upload=0; download=0; total=0; expire=0');
    expect(fromB64(r.text).split('\n')).toHaveLength(1); // socks has no URL form
  });

  it('answers 404 with an empty body for unknown ids, ids on no enabled inbound, and every other path', async () => {
    for (const path of [
      '/sub/unknown',
      '/sub/sub-off',
      '/',
      '/sub/',
      '/sub',
      '/sub/sub-alice/x',
      '/json/sub-alice',
      '/clash/sub-alice',
      '/panel/',
      '/login',
      '/sub/%E0%A4%A',
    ]) {
      const r = await get(path);
      expect([path, r.status, r.text]).toEqual([path, 404, '']);
    }
    for (const method of ['POST', 'PUT', 'DELETE']) expect((await get('/sub/sub-alice', {}, method)).status).toBe(404);
  });

  it('decodes the subscription id exactly once', async () => {
    await seed.client({ email: 'odd-id', subId: 'a b%2F/c', uuid: UUID }, [ids.vless!]);
    expect((await get('/sub/a%20b%252F%2Fc')).status).toBe(200);
    expect((await get('/sub/a%20b%2F%2Fc')).status).toBe(404);
  });

  it('a depleted subscription still answers, with no links and the usage that explains it', async () => {
    const r = await get('/sub/sub-depleted');
    expect(r.status).toBe(200);
    expect(fromB64(r.text)).toBe('');
    expect(r.headers.get('subscription-userinfo')).toBe('upload=10; download=0; total=10; expire=0');
  });

  it('reads the paths and the subscription switch from settings on each request', async () => {
    await settings({ subPath: '/s3cret/' });
    expect((await get('/sub/sub-alice')).status).toBe(404);
    expect((await get('/s3cret/sub-alice')).status).toBe(200);
    await settings({ subEnable: false });
    expect((await get('/s3cret/sub-alice')).status).toBe(404);
  });

  it('serves JSON configs only when subJsonEnable is on', async () => {
    expect((await get('/json/sub-alice')).status).toBe(404);
    await settings({ subJsonEnable: true, subJsonPath: '/j/' });
    expect((await get('/json/sub-alice')).status).toBe(404);
    const r = await get('/j/sub-alice');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.headers.get('subscription-userinfo')).toMatch(/^upload=108; /);
    const configs = JSON.parse(r.text);
    expect(configs).toHaveLength(5);
    expect(configs.map((c: any) => c.outbounds[0].protocol)).toEqual([
      'vmess',
      'vless',
      'vless',
      'trojan',
      'shadowsocks',
    ]);
    expect(configs[0].remarks).toBe('VM-alice');
    expect(configs[4].outbounds[0].settings.servers[0]).toEqual({
      address: 'sub.example.com',
      port: 20004,
      method: 'aes-256-gcm',
      password: 'pw/alice+=',
      level: 8,
    });
    expect((await get('/j/unknown')).status).toBe(404);
  });

  it('serves Clash YAML only when subClashEnable is on, as an attachment', async () => {
    expect((await get('/clash/sub-alice')).status).toBe(404);
    await settings({ subClashEnable: true, subTitle: 'Été VPN' });
    const r = await get('/clash/sub-alice');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toBe(
      `attachment; filename="_t_VPN.yaml"; filename*=UTF-8''${encodeURIComponent('Été VPN')}.yaml`,
    );
    const doc = parseYaml(r.text);
    expect(doc.proxies.map((p: any) => p.type)).toEqual(['vmess', 'vless', 'vless', 'ss']); // trojan without TLS cannot run in Mihomo
    expect(doc.proxies[0]).toMatchObject({
      name: 'VM-alice',
      server: 'sub.example.com',
      port: 20001,
      network: 'ws',
      'ws-opts': { path: '/vm' },
    });
    expect(doc['proxy-groups'][0].proxies).toEqual([...doc.proxies.map((p: any) => p.name), 'DIRECT']);
  });

  it('serves the HTML page for Accept: text/html or ?html=1', async () => {
    await settings({ subJsonEnable: true });
    for (const [path, headers] of [
      ['/sub/sub-alice', { accept: 'text/html,application/xhtml+xml' }],
      ['/sub/sub-alice?html=1', {}],
    ] as const) {
      const r = await get(path, headers);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/html');
      expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(r.text.match(/<svg class="qr"/g)).toHaveLength(5);
      expect(r.text).toContain('http://sub.example.com:2096/json/sub-alice');
      expect(r.text).toContain('data-testid="online">Online');
    }
    const bob = await get('/sub/sub-bob?html=1');
    expect(bob.text).toContain('bob&lt;script&gt;');
    expect(bob.text).not.toContain('bob<script>');
  });

  it('the HTML page is a function of the data: same bytes twice, its one inline script allowed by hash', async () => {
    const a = await get('/sub/sub-alice?html=1');
    const b = await get('/sub/sub-alice?html=1');
    expect(b.text).toBe(a.text);
    expect(b.headers.get('content-security-policy')).toBe(a.headers.get('content-security-policy'));
    const scripts = [...a.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const digest = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(a.headers.get('content-security-policy')).toContain(`script-src 'sha256-${digest}';`);
  });

  it('believes forwarded headers only from trusted proxies', async () => {
    const fwd = { 'x-forwarded-host': 'public.example.org', 'x-forwarded-proto': 'https' };
    t.peer.ip = '203.0.113.7';
    let r = await get('/sub/sub-alice', fwd);
    expect(fromB64(r.text)).toContain('@sub.example.com:20003');
    expect(fromB64(r.text)).not.toContain('public.example.org');
    expect(r.headers.get('profile-web-page-url')).toBe('http://sub.example.com:2096/sub/sub-alice');
    t.peer.ip = '127.0.0.1';
    r = await get('/sub/sub-alice', fwd);
    expect(fromB64(r.text)).toContain('@public.example.org:20003');
    expect(r.headers.get('profile-web-page-url')).toBe('https://public.example.org/sub/sub-alice');
    r = await get('/sub/sub-alice', { forwarded: 'for=1.2.3.4;host=rfc.example.net;proto=https' });
    expect(fromB64(r.text)).toContain('@rfc.example.net:20003');
    t.peer.ip = '10.1.2.3';
    await settings({ trustedProxyCIDRs: '10.0.0.0/8' });
    r = await get('/sub/sub-alice', fwd);
    expect(fromB64(r.text)).toContain('@public.example.org:20003');
    r = await get('/sub/sub-alice', { 'x-forwarded-host': 'bad host/"<x>' });
    expect(fromB64(r.text)).toContain('@sub.example.com:20003');
  });

  it('prefers the configured public host over the request host', async () => {
    await settings({ subDomain: 'cdn.example.net' });
    expect(fromB64((await get('/sub/sub-alice')).text)).toContain('@cdn.example.net:20003');
    await settings({ subURI: 'https://subs.example.io:8443/feed/' });
    const r = await get('/sub/sub-alice');
    expect(fromB64(r.text)).toContain('@subs.example.io:20003');
    expect(fromB64(r.text)).toContain('@198.51.100.20:20002'); // a routable listen still wins
    expect(r.headers.get('profile-web-page-url')).toBe('https://subs.example.io:8443/feed/sub-alice');
  });

  it('serves fresh data after change events, and after the cache TTL when no event came', async () => {
    const info = async () => (await get('/sub/sub-bob')).headers.get('subscription-userinfo');
    const { clientTraffics, clients } = seed.conn.t;
    const { eq } = await import('drizzle-orm');
    expect(await info()).toBe('upload=0; download=0; total=0; expire=0');
    await seed.conn.write((db) =>
      db.update(clientTraffics).set({ up: 5, down: 6 }).where(eq(clientTraffics.email, 'bob<script>')),
    );
    t.events.emit('traffic.tick', {
      at: t.clock.now(),
      inbounds: [],
      outbounds: [],
      clients: [{ email: 'bob<script>', up: 5, down: 6 }],
      onlines: [],
    });
    expect(await info()).toBe('upload=5; download=6; total=0; expire=0');
    await seed.conn.write((db) => db.update(clients).set({ totalGB: 999 }).where(eq(clients.email, 'bob<script>')));
    t.events.emit('clients.changed', { emails: ['bob<script>'], action: 'update' });
    expect(await info()).toBe('upload=5; download=6; total=999; expire=0');
    // A change no event announces (another process) shows within the TTL.
    await seed.conn.write((db) => db.update(clients).set({ totalGB: 0 }).where(eq(clients.email, 'bob<script>')));
    expect(await info()).toBe('upload=5; download=6; total=999; expire=0');
    t.clock.advance(5000);
    expect(await info()).toBe('upload=5; download=6; total=0; expire=0');
    await seed.conn.write((db) =>
      db.update(clientTraffics).set({ up: 0, down: 0 }).where(eq(clientTraffics.email, 'bob<script>')),
    );
    t.events.emit('clients.changed', { emails: 'all', action: 'reset' });
    expect(await info()).toBe('upload=0; download=0; total=0; expire=0');
  });

  it("advertises a fallback child through its master's address, port and TLS", async () => {
    const master = await seed.inbound({
      protocol: 'vless',
      port: 443,
      remark: 'M',
      listen: '198.51.100.30',
      streamSettings: {
        network: 'tcp',
        security: 'tls',
        tlsSettings: { serverName: 'front.example', alpn: ['http/1.1'] },
      },
    });
    const other = await seed.inbound({
      protocol: 'trojan',
      port: 8443,
      remark: 'M2',
      streamSettings: { network: 'tcp', security: 'none' },
    });
    const child = await seed.inbound({
      protocol: 'vless',
      port: 20010,
      remark: 'CHILD',
      listen: '127.0.0.1',
      streamSettings: { network: 'ws', security: 'none', wsSettings: { path: '/child' } },
    });
    await seed.fallback(other, child, 5);
    await seed.fallback(master, child, 1);
    await seed.client({ email: 'fb-user', subId: 'sub-fb', uuid: UUID }, [child]);
    const [link] = fromB64((await get('/sub/sub-fb')).text).split('\n');
    const u = new URL(link!);
    expect([u.hostname, u.port]).toEqual(['198.51.100.30', '443']);
    expect(Object.fromEntries(u.searchParams)).toEqual({
      type: 'ws',
      encryption: 'none',
      path: '/child',
      security: 'tls',
      sni: 'front.example',
      alpn: 'http/1.1',
    });
    expect(decodeURIComponent(u.hash.slice(1))).toBe('CHILD-fb-user');
  });

  describe('panel link endpoints', () => {
    it("lists a client's links across all attached inbounds", async () => {
      const r = await call(t, 'GET', '/panel/api/clients/links/alice', undefined, session, {
        host: 'panel.example:2053',
      });
      expect(r.json.success).toBe(true);
      expect(r.json.obj.map((l: string) => l.split(':')[0])).toEqual(['vmess', 'vless', 'trojan', 'ss', 'vless']);
      expect(r.json.obj[2]).toContain('@panel.example:20003');
      expect(r.json.obj[4]).toContain('#OFF-alice');
      const bob = await call(
        t,
        'GET',
        `/panel/api/clients/links/${encodeURIComponent('bob<script>')}`,
        undefined,
        session,
      );
      expect(bob.json.obj).toHaveLength(1);
      const none = await call(t, 'GET', '/panel/api/clients/links/nobody', undefined, session);
      expect(none.json).toMatchObject({ success: false });
      expect(none.json.msg).toContain('nobody');
    });
    it('lists plain subscription links, empty for an unknown subId', async () => {
      const r = await call(t, 'GET', '/panel/api/clients/subLinks/sub-alice', undefined, session, {
        host: 'panel.example',
      });
      expect(r.json.success).toBe(true);
      expect(r.json.obj).toHaveLength(5);
      expect(r.json.obj[0]).toMatch(/^vmess:\/\//);
      const empty = await call(t, 'GET', '/panel/api/clients/subLinks/nope', undefined, session);
      expect(empty.json).toEqual({ success: true, msg: '', obj: [] });
      expect((await call(t, 'GET', '/panel/api/clients/subLinks/sub-off', undefined, session)).json.obj).toEqual([]);
    });
    it('requires authentication', async () => {
      const r = await call(t, 'GET', '/panel/api/clients/subLinks/sub-alice');
      expect(r.status).toBe(404);
    });
  });
});
