// Local stand-ins for the two provider services, speaking the HTTP protocol the panel uses against the real
// ones (the tunnel service's device API, the VPN service's catalogue and credentials API), with switches for
// their error answers and for answers slower than the panel's timeout.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export const TUNNEL_PEER_KEY = 'bmXOC+F1FxEMF9dyiK2H5/1SUtzH0JuVo51h2wPfgyo=';
export const GOOD_LICENSE = 'a1B2c3D4-e5F6g7H8-i9J0k1L2';
export const VPN_TOKEN = 'e9f2ab6cd0c14d1e8f3a7b5c9d2e4f6a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e';
export const VPN_PRIVATE_KEY = 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=';

export interface TunnelDevice {
  id: string;
  token: string;
  key: string;
  license: string;
  accountType: string;
  name: string;
  deleted: boolean;
}

export interface Standins {
  url: string;
  tunnelBase: string;
  tunnel: {
    devices: Map<string, TunnelDevice>;
    mode: 'ok' | 'slow' | 'down';
    requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  };
  vpn: { mode: 'ok' | 'slow' | 'down'; requests: { path: string; headers: IncomingMessage['headers'] }[] };
  reset(): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const cfError = (res: ServerResponse, status: number, code: number, message: string) =>
  json(res, status, { result: null, success: false, errors: [{ code, message }], messages: [] });

const COUNTRIES = [
  {
    id: 228,
    name: 'United States',
    code: 'US',
    cities: [{ id: 8971718, name: 'Chicago', latitude: 41.85, longitude: -87.65, dns_name: 'chicago', hub_score: 0 }],
  },
  {
    id: 81,
    name: 'Germany',
    code: 'DE',
    cities: [{ id: 2181458, name: 'Frankfurt', latitude: 50.11, longitude: 8.68, dns_name: 'frankfurt', hub_score: 0 }],
  },
];

function vpnServers(countryId: number) {
  if (countryId !== 81) return { servers: [], locations: [], technologies: [], groups: [], services: [] };
  const wg = (key: string) => ({
    id: 35,
    name: 'Wireguard',
    identifier: 'wireguard_udp',
    metadata: [{ name: 'public_key', value: key }],
    pivot: { technology_id: 35, server_id: 0, status: 'online' },
  });
  const ovpn = { id: 3, name: 'OpenVPN UDP', identifier: 'openvpn_udp', metadata: [], pivot: { status: 'online' } };
  return {
    servers: [
      {
        id: 947,
        created_at: '2020-01-01 00:00:00',
        name: 'Germany #947',
        station: '194.31.54.4',
        ipv6_station: '',
        hostname: 'de947.nordvpn.com',
        load: 41,
        status: 'online',
        location_ids: [51],
        technologies: [ovpn, wg('SsWzsGd8JtZ2Bzi8C0AwaKOI/TAOPrcOrwTgkLqNIGs=')],
      },
      {
        id: 1012,
        created_at: '2021-01-01 00:00:00',
        name: 'Germany #1012',
        station: '194.31.54.9',
        ipv6_station: '',
        hostname: 'de1012.nordvpn.com',
        load: 7,
        status: 'online',
        location_ids: [51],
        technologies: [wg('kT2g5Yz4cDj9oXG7Fq1N3mPa8LrVw6sUhBeCi0dJ2xk=')],
      },
      {
        id: 1100,
        created_at: '2022-01-01 00:00:00',
        name: 'Germany #1100',
        station: '194.31.54.20',
        ipv6_station: '',
        hostname: 'de1100.nordvpn.com',
        load: 12,
        status: 'online',
        location_ids: [51],
        technologies: [ovpn],
      },
    ],
    locations: [
      {
        id: 51,
        created_at: '',
        latitude: 50.11,
        longitude: 8.68,
        country: {
          id: 81,
          name: 'Germany',
          code: 'DE',
          city: {
            id: 2181458,
            name: 'Frankfurt',
            latitude: 50.11,
            longitude: 8.68,
            dns_name: 'frankfurt',
            hub_score: 0,
          },
        },
      },
    ],
    technologies: [],
    groups: [],
    services: [],
  };
}

export async function startStandins(): Promise<Standins> {
  const tunnel: Standins['tunnel'] = { devices: new Map(), mode: 'ok', requests: [] };
  const vpn: Standins['vpn'] = { mode: 'ok', requests: [] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url!, 'http://x');
      const p = url.pathname;
      if (p.startsWith('/tunnel/v0a4005/')) {
        const path = p.slice('/tunnel/v0a4005'.length);
        tunnel.requests.push({ method: req.method!, path, headers: req.headers, body });
        if (tunnel.mode === 'slow') {
          setTimeout(() => json(res, 200, {}), 3000);
          return;
        }
        if (tunnel.mode === 'down') {
          res.writeHead(503, { 'content-type': 'text/html' });
          res.end('<html>503 Service Temporarily Unavailable</html>');
          return;
        }
        return tunnelApi(req, res, path, body);
      }
      if (p.startsWith('/vpn/')) {
        vpn.requests.push({ path: `${p.slice(4)}${url.search}`, headers: req.headers });
        if (vpn.mode === 'slow') {
          setTimeout(() => json(res, 200, []), 3000);
          return;
        }
        if (vpn.mode === 'down') {
          res.writeHead(502, { 'content-type': 'text/html' });
          res.end('bad gateway');
          return;
        }
        return vpnApi(req, res, p.slice(4), url.searchParams);
      }
      res.writeHead(404);
      res.end();
    });
  });

  const device = (d: TunnelDevice, withToken: boolean) => ({
    id: d.id,
    type: 'a',
    model: 'proxy-panel',
    name: d.name,
    key: d.key,
    account: account(d),
    config: {
      client_id: 'wVM5', // base64 of three bytes
      peers: [
        {
          public_key: TUNNEL_PEER_KEY,
          endpoint: {
            v4: '162.159.192.1:0',
            v6: '[2606:4700:d0::a29f:c001]:0',
            host: 'engage.cloudflareclient.com:2408',
          },
        },
      ],
      interface: { addresses: { v4: '172.16.0.2', v6: '2606:4700:110:8d8e:6d4e:2a10:bb63:1f8f' } },
      services: { http_proxy: '172.16.0.1:2480' },
    },
    ...(withToken ? { token: d.token } : {}),
    warp_enabled: true,
    waitlist_enabled: false,
    created: '2026-11-22T12:00:00.000Z',
    updated: '2026-11-22T12:00:00.000Z',
    tos: '2026-11-22T12:00:00.000Z',
    place: 0,
    locale: 'en_US',
    enabled: true,
    install_id: '',
    fcm_token: '',
  });
  const account = (d: TunnelDevice) => ({
    id: `acct-${d.id}`,
    account_type: d.accountType,
    created: '2026-11-22T12:00:00.000Z',
    updated: '2026-11-22T12:00:00.000Z',
    premium_data: d.accountType === 'limited' ? 24598641664 : 0,
    quota: d.accountType === 'limited' ? 24598641664 : 0,
    usage: 1234567,
    warp_plus: true,
    referral_count: 0,
    referral_renewal_countdown: 0,
    role: 'child',
    license: d.license,
    ttl: '2032-01-01T00:00:00Z',
  });

  function tunnelApi(req: IncomingMessage, res: ServerResponse, path: string, body: string) {
    if (req.method === 'POST' && path === '/reg') {
      if (!req.headers['cf-client-version']) return cfError(res, 400, 1000, 'Missing client version');
      let b: { key?: string; tos?: string; name?: string };
      try {
        b = JSON.parse(body);
      } catch {
        return cfError(res, 400, 1002, 'Malformed JSON');
      }
      if (typeof b.key !== 'string' || Buffer.from(b.key, 'base64').length !== 32 || !b.key.endsWith('='))
        return cfError(res, 400, 1001, 'Invalid public key');
      if (!b.tos) return cfError(res, 400, 1003, 'Terms of service not accepted');
      const d: TunnelDevice = {
        id: `t${randomBytes(6).toString('hex')}`,
        token: randomBytes(24).toString('hex'),
        key: b.key,
        name: b.name ?? '',
        license: 'Zz9Yy8Xx-Ww7Vv6Uu-Tt5Ss4Rr',
        accountType: 'free',
        deleted: false,
      };
      tunnel.devices.set(d.id, d);
      return json(res, 200, device(d, true));
    }
    const m = /^\/reg\/([^/]+)(\/account)?$/.exec(path);
    const d = m ? tunnel.devices.get(decodeURIComponent(m[1]!)) : undefined;
    if (!m || !d || d.deleted) return cfError(res, 404, 1100, 'Device not found');
    if (req.headers.authorization !== `Bearer ${d.token}`) return cfError(res, 401, 10000, 'Authentication error');
    if (!m[2] && req.method === 'GET') return json(res, 200, device(d, false));
    if (!m[2] && req.method === 'DELETE') {
      d.deleted = true;
      res.writeHead(204);
      res.end();
      return;
    }
    if (m[2] && req.method === 'GET') return json(res, 200, account(d));
    if (m[2] && req.method === 'PUT') {
      const lic = (JSON.parse(body || '{}') as { license?: string }).license;
      if (lic !== GOOD_LICENSE) return cfError(res, 400, 10014, 'Invalid license');
      d.license = lic;
      d.accountType = 'limited';
      return json(res, 200, account(d));
    }
    return cfError(res, 405, 1, 'Method not allowed');
  }

  function vpnApi(req: IncomingMessage, res: ServerResponse, path: string, q: URLSearchParams) {
    if (path === '/v1/countries') return json(res, 200, COUNTRIES);
    if (path === '/v2/servers') {
      if (q.get('filters[servers_technologies][id]') !== '35' || q.get('limit') !== '0')
        return json(res, 400, { errors: { code: 400, message: 'Bad filters' } });
      return json(res, 200, vpnServers(Number(q.get('filters[country_id]'))));
    }
    if (path === '/v1/users/services/credentials') {
      const auth = req.headers.authorization ?? '';
      const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
      if (decoded !== `token:${VPN_TOKEN}`)
        return json(res, 401, { errors: { code: 101301, message: 'Unauthorized' } });
      return json(res, 200, {
        id: 123456,
        created_at: '2026-01-01 00:00:00',
        updated_at: '2026-01-01 00:00:00',
        username: 'svcuser',
        password: 'svcpass',
        nordlynx_private_key: VPN_PRIVATE_KEY,
      });
    }
    return json(res, 404, { errors: { code: 404, message: 'Not found' } });
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tunnelBase: `${url}/tunnel/v0a4005`,
    tunnel,
    vpn,
    reset() {
      tunnel.devices.clear();
      tunnel.mode = 'ok';
      tunnel.requests = [];
      vpn.mode = 'ok';
      vpn.requests = [];
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
