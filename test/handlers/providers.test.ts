// /panel/core/provider-a/* and /panel/core/provider-b/* through app.request(), on libsql and PostgreSQL, against
// local stand-ins for the two services (test/support/provider-standins.ts) behind the guarded fetch.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import {
  GOOD_LICENSE,
  startStandins,
  TUNNEL_PEER_KEY,
  VPN_PRIVATE_KEY,
  VPN_TOKEN,
  type Standins,
} from '../support/provider-standins.js';
import { x25519PublicKey } from '../../domain/keys/x25519.js';

const A = '/panel/core/provider-a';
const B = '/panel/core/provider-b';
let w: Standins;
beforeAll(async () => {
  w = await startStandins();
});
afterAll(() => w.close());

const form = (o: Record<string, string>) => new URLSearchParams(o);
const pubOf = async (priv: string) =>
  Buffer.from(await x25519PublicKey(new Uint8Array(Buffer.from(priv, 'base64')))).toString('base64');

describe.each(testDatabases())('provider integrations on $name', (db) => {
  let t: TestApp;
  let s: Session;
  /** Every provider answer of the test, to check no secret left the panel through them (the core settings
   *  payload shows the template, which must hold the WireGuard key for the core). */
  let bodies: string[];

  beforeEach(async () => {
    w.reset();
    t = await createTestApp(db, {
      deps: {
        http: createGuardedFetch({ allowPrivate: true }),
        providers: { tunnelApi: w.tunnelBase, vpnApi: `${w.url}/vpn`, timeoutMs: 500 },
      },
    });
    s = await login(t);
    bodies = [];
  });
  afterEach(() => t.close());

  const post = async (path: string, body?: unknown) => {
    const r = await call(t, 'POST', path, body, s);
    if (path.includes('/provider-')) bodies.push(r.text);
    return r;
  };
  const template = async () => JSON.parse((await post('/panel/core/')).json.obj.coreSetting);
  const restarts = () => t.core.ops('restart').length;

  describe('provider-a (tunnel service)', () => {
    it('reg without keys generates a pair in-process, registers it, stores the account and adds the warp outbound', async () => {
      const before = restarts();
      const r = await post(`${A}/reg`, form({}));
      expect(r.json.success).toBe(true);
      expect(r.json.msg).toMatch(/registered; the warp outbound is in the core template/);
      expect(r.json.obj.keyGenerated).toBe(true);
      const reg = w.tunnel.requests.find((q) => q.method === 'POST' && q.path === '/reg')!;
      const sent = JSON.parse(reg.body);
      expect(reg.headers['cf-client-version']).toBeTruthy();
      expect(sent.key).toBe(r.json.obj.account.publicKey);
      expect(sent.tos).toBe('2026-11-22T12:00:00.000Z');
      const dev = [...w.tunnel.devices.values()][0]!;
      expect(r.json.obj.account).toMatchObject({
        registered: true,
        deviceId: dev.id,
        license: '****s4Rr',
        accountType: 'free',
      });
      expect(r.json.obj.outbound.settings.secretKey).not.toMatch(/^[A-Za-z0-9+/]{43}=$/);

      const tpl = await template();
      const ob = tpl.outbounds.find((o: any) => o.tag === 'warp');
      expect(ob).toMatchObject({
        protocol: 'wireguard',
        settings: {
          address: ['172.16.0.2/32', '2606:4700:110:8d8e:6d4e:2a10:bb63:1f8f/128'],
          reserved: [193, 83, 57],
          mtu: 1420,
          peers: [
            {
              publicKey: TUNNEL_PEER_KEY,
              endpoint: 'engage.cloudflareclient.com:2408',
              allowedIPs: ['0.0.0.0/0', '::/0'],
            },
          ],
        },
      });
      // The key in the template is the private half of the registered public key.
      expect(await pubOf(ob.settings.secretKey)).toBe(dev.key);
      expect(restarts()).toBe(before + 1);
      expect((t.core.lastConfig as any).outbounds.some((o: any) => o.tag === 'warp')).toBe(true);
      // The access token and private key never appear in a provider answer.
      expect(bodies.join('')).not.toContain(dev.token);
      expect(bodies.join('')).not.toContain(ob.settings.secretKey);
    });

    it('reg with a given pair uses it; a mismatched or malformed pair is refused before any call', async () => {
      const priv = 'UJ4y6d0uV0yZPm/0xk4c0lRyW9Q8mXr9aXxv1sB5Xm0=';
      const pub = await pubOf(priv);
      const bad = await post(`${A}/reg`, form({ privateKey: priv, publicKey: TUNNEL_PEER_KEY }));
      expect(bad.json).toMatchObject({ success: false, msg: 'publicKey: does not belong to privateKey' });
      const junk = await post(`${A}/reg`, form({ privateKey: 'not-a-key' }));
      expect(junk.json.msg).toMatch(/^privateKey: must be a WireGuard key/);
      expect(w.tunnel.requests).toHaveLength(0);
      const r = await post(`${A}/reg`, { privateKey: priv, publicKey: pub });
      expect(r.json.success).toBe(true);
      expect(r.json.obj.keyGenerated).toBe(false);
      expect([...w.tunnel.devices.values()][0]!.key).toBe(pub);
      expect(bodies.join('')).not.toContain(priv);
    });

    it("license applies a licence key, passes the service's refusal on, and needs a registration", async () => {
      const none = await post(`${A}/license`, form({ license: GOOD_LICENSE }));
      expect(none.json).toMatchObject({ success: false, msg: 'provider-a: not registered (call reg first)' });
      await post(`${A}/reg`, form({}));
      const bad = await post(`${A}/license`, form({ license: 'Aa1Bb2Cc-Dd3Ee4Ff-Gg5Hh6Ii' }));
      expect(bad.json).toMatchObject({
        success: false,
        msg: 'provider-a licence: the service answered HTTP 400: Invalid license',
      });
      const short = await post(`${A}/license`, form({ license: 'short' }));
      expect(short.json.msg).toMatch(/^license: must be a licence key/);
      const good = await post(`${A}/license`, form({ license: GOOD_LICENSE }));
      expect(good.json.success).toBe(true);
      expect(good.json.obj.account).toMatchObject({
        license: `****${GOOD_LICENSE.slice(-4)}`,
        accountType: 'limited',
        outboundTag: 'warp',
      });
      const put = w.tunnel.requests.filter((q) => q.method === 'PUT').at(-1)!;
      expect(put.headers.authorization).toBe(`Bearer ${[...w.tunnel.devices.values()][0]!.token}`);
      expect(bodies.join('')).not.toContain(GOOD_LICENSE);
    });

    it('config re-reads the device and puts the outbound back; data gives usage and account state', async () => {
      await post(`${A}/reg`, form({}));
      // The operator removed the outbound by hand: config puts it back.
      const tpl = await template();
      tpl.outbounds = tpl.outbounds.filter((o: any) => o.tag !== 'warp');
      expect((await post('/panel/core/update', form({ coreSetting: JSON.stringify(tpl) }))).json.success).toBe(true);
      const c = await post(`${A}/config`);
      expect(c.json.success).toBe(true);
      expect(c.json.obj).toMatchObject({
        applied: true,
        device: { model: 'proxy-panel', enabled: true, warpEnabled: true },
      });
      expect((await template()).outbounds.filter((o: any) => o.tag === 'warp')).toHaveLength(1);
      // A second config changes nothing: no reload.
      const before = restarts();
      await post(`${A}/config`);
      expect(restarts()).toBe(before);

      const d = await post(`${A}/data`);
      expect(d.json.obj).toMatchObject({
        registered: true,
        outboundTag: 'warp',
        accountType: 'free',
        usage: { usage: 1234567, warpPlus: true, role: 'child', quota: 0 },
      });
      w.tunnel.mode = 'down';
      const down = await post(`${A}/data`);
      expect(down.json.success).toBe(true);
      expect(down.json.obj).toMatchObject({
        registered: true,
        usage: null,
        usageError: 'provider-a account: the service answered HTTP 503',
      });
    });

    it('del unregisters the device, forgets the account, removes the outbound and the rules routed to it', async () => {
      await post(`${A}/reg`, form({}));
      const tpl = await template();
      tpl.routing.rules.push({ type: 'field', domain: ['example.org'], outboundTag: 'warp' });
      await post('/panel/core/update', form({ coreSetting: JSON.stringify(tpl) }));
      const r = await post(`${A}/del`);
      expect(r.json).toMatchObject({
        success: true,
        obj: { wasRegistered: true, removedOutbounds: ['warp'], removedRules: 1, restarted: true },
      });
      expect([...w.tunnel.devices.values()][0]!.deleted).toBe(true);
      const after = await template();
      expect(after.outbounds.some((o: any) => o.tag === 'warp')).toBe(false);
      expect(after.routing.rules.some((x: any) => x.outboundTag === 'warp')).toBe(false);
      expect((await post(`${A}/data`)).json.obj).toEqual({ registered: false });
      expect((await post(`${A}/config`)).json.msg).toMatch(/not registered/);
    });

    it('del still forgets the device when the service is down, and says so', async () => {
      await post(`${A}/reg`, form({}));
      w.tunnel.mode = 'down';
      const r = await post(`${A}/del`);
      expect(r.json.success).toBe(true);
      expect(r.json.msg).toMatch(/unregister: the service answered HTTP 503; the device was forgotten here anyway/);
      expect((await post(`${A}/data`)).json.obj).toEqual({ registered: false });
    });

    it("passes the service's error text on, times out, and stores nothing on failure", async () => {
      w.tunnel.mode = 'down';
      const down = await post(`${A}/reg`, form({}));
      expect(down.json).toMatchObject({
        success: false,
        msg: 'provider-a registration: the service answered HTTP 503',
      });
      w.tunnel.mode = 'slow';
      const started = Date.now();
      const slow = await post(`${A}/reg`, form({}));
      expect(slow.json.success).toBe(false);
      expect(slow.json.msg).toMatch(/^provider-a registration: request to 127\.0\.0\.1:\d+ timed out$/);
      expect(Date.now() - started).toBeLessThan(2500);
      expect((await post(`${A}/data`)).json.obj).toEqual({ registered: false });
      expect((await template()).outbounds.some((o: any) => o.tag === 'warp')).toBe(false);
    });

    it('under the V2Ray core the account is stored but the template is left valid, and the answer names Xray', async () => {
      t.core.current = { ...t.core.current, flavour: 'v2ray', version: '4.34.0' };
      const before = JSON.stringify(await template());
      const r = await post(`${A}/reg`, form({}));
      expect(r.json.success).toBe(true);
      expect(r.json.obj.applied).toBe(false);
      expect(r.json.msg).toMatch(
        /registered; WireGuard outbounds need the Xray core; the running core is V2Ray 4\.34\.0/,
      );
      expect(JSON.stringify(await template())).toBe(before);
      expect((await post(`${A}/data`)).json.obj.registered).toBe(true);
    });

    it('a template the core refuses keeps the registration and reports why the outbound was not added', async () => {
      t.core.rejectConfigs = 'unknown field';
      const r = await post(`${A}/reg`, form({}));
      expect(r.json.success).toBe(true);
      expect(r.json.obj.applied).toBe(false);
      expect(r.json.msg).toMatch(
        /the outbound was not added: the core rejected the config with this change: unknown field/,
      );
      t.core.rejectConfigs = null;
      expect((await template()).outbounds.some((o: any) => o.tag === 'warp')).toBe(false);
    });

    it('refuses an unknown action and needs authentication', async () => {
      expect((await post(`${A}/nope`)).json.msg).toMatch(/^action: must be one of reg, license, config, data, del/);
      expect((await call(t, 'POST', `${A}/data`)).status).toBe(404);
    });
  });

  describe('provider-b (VPN service)', () => {
    it('countries lists the catalogue sorted by name with cities', async () => {
      const r = await post(`${B}/countries`);
      expect(r.json.success).toBe(true);
      expect(r.json.obj).toEqual([
        { id: 81, name: 'Germany', code: 'DE', cities: [{ id: 2181458, name: 'Frankfurt' }] },
        { id: 228, name: 'United States', code: 'US', cities: [{ id: 8971718, name: 'Chicago' }] },
      ]);
    });

    it("servers gives the country's WireGuard servers with load and endpoint data, least loaded first", async () => {
      const r = await post(`${B}/servers`, form({ countryId: '81' }));
      expect(r.json.success).toBe(true);
      expect(r.json.obj.servers).toEqual([
        {
          id: 1012,
          name: 'Germany #1012',
          hostname: 'de1012.nordvpn.com',
          station: '194.31.54.9',
          load: 7,
          city: 'Frankfurt',
          country: 'Germany',
          publicKey: 'kT2g5Yz4cDj9oXG7Fq1N3mPa8LrVw6sUhBeCi0dJ2xk=',
          endpoint: '194.31.54.9:51820',
        },
        {
          id: 947,
          name: 'Germany #947',
          hostname: 'de947.nordvpn.com',
          station: '194.31.54.4',
          load: 41,
          city: 'Frankfurt',
          country: 'Germany',
          publicKey: 'SsWzsGd8JtZ2Bzi8C0AwaKOI/TAOPrcOrwTgkLqNIGs=',
          endpoint: '194.31.54.4:51820',
        },
      ]);
      expect(w.vpn.requests.at(-1)!.path).toBe(
        '/v2/servers?limit=0&filters[servers_technologies][id]=35&filters[country_id]=81',
      );
      expect((await post(`${B}/servers`, form({ countryId: '81/../x' }))).json.msg).toMatch(
        /^countryId: must be a numeric country id/,
      );
      expect((await post(`${B}/servers`, form({}))).json.msg).toMatch(/^countryId/);
      expect((await post(`${B}/servers`, form({ countryId: '228' }))).json.obj).toEqual({ servers: [] });
    });

    it("reg trades the access token for the private key; a bad token gets the service's answer", async () => {
      const bad = await post(`${B}/reg`, form({ token: 'a'.repeat(64) }));
      expect(bad.json).toMatchObject({
        success: false,
        msg: 'provider-b credentials: the service answered HTTP 401: Unauthorized',
      });
      const r = await post(`${B}/reg`, form({ token: VPN_TOKEN }));
      expect(r.json.success).toBe(true);
      expect(r.json.obj).toMatchObject({
        registered: true,
        source: 'token',
        hasToken: true,
        publicKey: await pubOf(VPN_PRIVATE_KEY),
        outbounds: [],
      });
      expect(w.vpn.requests.at(-1)!.headers.authorization).toBe(
        `Basic ${Buffer.from(`token:${VPN_TOKEN}`).toString('base64')}`,
      );
      expect(bodies.join('')).not.toContain(VPN_TOKEN);
      expect(bodies.join('')).not.toContain(VPN_PRIVATE_KEY);
    });

    it('chosen servers become WireGuard outbounds with the stored key; del removes them and their rules', async () => {
      const noKey = await post(`${B}/servers`, form({ countryId: '81', serverIds: '1012' }));
      expect(noKey.json).toMatchObject({
        success: false,
        msg: 'provider-b: no private key yet (call reg with an access token, or setKey)',
      });
      await post(`${B}/reg`, form({ token: VPN_TOKEN }));
      const unknown = await post(`${B}/servers`, form({ countryId: '81', serverIds: '1100' }));
      expect(unknown.json.msg).toBe('serverIds: 1100 is not a WireGuard server of country 81');
      const before = restarts();
      const r = await post(`${B}/servers`, form({ countryId: '81', serverIds: '1012,947' }));
      expect(r.json.success).toBe(true);
      expect(r.json.msg).toBe('2 outbound(s) in the core template');
      expect(r.json.obj.added.map((o: any) => o.tag)).toEqual(['nord-de1012.nordvpn.com', 'nord-de947.nordvpn.com']);
      expect(restarts()).toBe(before + 1);
      const tpl = await template();
      expect(tpl.outbounds.find((o: any) => o.tag === 'nord-de1012.nordvpn.com')).toEqual({
        tag: 'nord-de1012.nordvpn.com',
        protocol: 'wireguard',
        settings: {
          secretKey: VPN_PRIVATE_KEY,
          address: ['10.5.0.2/32'],
          peers: [
            {
              publicKey: 'kT2g5Yz4cDj9oXG7Fq1N3mPa8LrVw6sUhBeCi0dJ2xk=',
              allowedIPs: ['0.0.0.0/0', '::/0'],
              endpoint: '194.31.54.9:51820',
            },
          ],
          noKernelTun: false,
        },
      });
      expect((await post(`${B}/data`)).json.obj.outbounds).toEqual([
        'nord-de1012.nordvpn.com',
        'nord-de947.nordvpn.com',
      ]);
      // Choosing the same server again replaces it in place (no duplicate tag).
      await post(`${B}/servers`, { countryId: 81, serverIds: [1012] });
      expect((await template()).outbounds.filter((o: any) => o.tag === 'nord-de1012.nordvpn.com')).toHaveLength(1);

      tpl.routing.rules.push({ type: 'field', ip: ['1.1.1.1'], outboundTag: 'nord-de947.nordvpn.com' });
      await post('/panel/core/update', form({ coreSetting: JSON.stringify(tpl) }));
      const del = await post(`${B}/del`);
      expect(del.json).toMatchObject({
        success: true,
        obj: {
          wasRegistered: true,
          removedOutbounds: ['nord-de1012.nordvpn.com', 'nord-de947.nordvpn.com'],
          removedRules: 1,
        },
      });
      const after = await template();
      expect(after.outbounds.some((o: any) => String(o.tag).startsWith('nord-'))).toBe(false);
      expect(after.routing.rules.some((x: any) => String(x.outboundTag).startsWith('nord-'))).toBe(false);
      expect((await post(`${B}/data`)).json.obj).toEqual({ registered: false, outbounds: [] });
    });

    it('setKey stores a key given directly and re-keys the outbounds already in the template', async () => {
      expect((await post(`${B}/setKey`, form({ key: 'nope' }))).json.msg).toMatch(
        /^key: must be a WireGuard private key/,
      );
      await post(`${B}/setKey`, form({ key: VPN_PRIVATE_KEY }));
      await post(`${B}/servers`, form({ countryId: '81', serverIds: '947' }));
      const other = 'UJ4y6d0uV0yZPm/0xk4c0lRyW9Q8mXr9aXxv1sB5Xm0=';
      const r = await post(`${B}/setKey`, form({ key: other }));
      expect(r.json.obj).toMatchObject({
        registered: true,
        source: 'key',
        hasToken: false,
        publicKey: await pubOf(other),
        outbounds: ['nord-de947.nordvpn.com'],
      });
      expect((await template()).outbounds.find((o: any) => o.tag === 'nord-de947.nordvpn.com').settings.secretKey).toBe(
        other,
      );
      expect(bodies.join('')).not.toContain(other);
    });

    it('V2Ray core: choosing servers is refused with the core it needs, and the template stays as it was', async () => {
      await post(`${B}/setKey`, form({ key: VPN_PRIVATE_KEY }));
      t.core.current = { ...t.core.current, flavour: 'v2ray', version: '4.34.0' };
      const before = JSON.stringify(await template());
      const r = await post(`${B}/servers`, form({ countryId: '81', serverIds: '947' }));
      expect(r.json.success).toBe(false);
      expect(r.json.msg).toMatch(/^WireGuard outbounds need the Xray core/);
      expect(JSON.stringify(await template())).toBe(before);
    });

    it('service errors and timeouts come back as the envelope', async () => {
      w.vpn.mode = 'down';
      expect((await post(`${B}/countries`)).json).toMatchObject({
        success: false,
        msg: 'provider-b countries: the service answered HTTP 502',
      });
      w.vpn.mode = 'slow';
      expect((await post(`${B}/servers`, form({ countryId: '81' }))).json.msg).toMatch(
        /^provider-b servers: request to 127\.0\.0\.1:\d+ timed out$/,
      );
      expect((await post(`${B}/reg`, form({ token: VPN_TOKEN }))).json.msg).toMatch(/timed out/);
      expect((await post(`${B}/data`)).json.obj).toEqual({ registered: false, outbounds: [] });
    });

    it('keeps the accounts out of the settings blob', async () => {
      await post(`${B}/reg`, form({ token: VPN_TOKEN }));
      await post(`${A}/reg`, form({}));
      const all = await post('/panel/setting/all');
      expect(all.json.success).toBe(true);
      expect(all.text).not.toContain(VPN_PRIVATE_KEY);
      expect(all.text).not.toMatch(/providerA|providerB/);
    });
  });
});
