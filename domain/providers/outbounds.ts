// The WireGuard outbounds the two provider integrations put into the core template, built from the services'
// answers the way the reference panel builds them (tags `warp` and `nord-<hostname>`). Pure.
import type { Json } from '../inbounds/model.js';
import { fromBase64 } from '../shared/random.js';
import { DomainError } from '../shared/errors.js';

export const TUNNEL_TAG = 'warp';
export const VPN_TAG_PREFIX = 'nord-';
/** The NordLynx interface address every account gets, and the WireGuard port of its servers. */
const VPN_ADDRESS = '10.5.0.2/32';
const VPN_PORT = 51820;
export const WIREGUARD_TECHNOLOGY_ID = 35;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The tunnel service's device config (`config` of the registration) → the `warp` outbound. */
export function tunnelOutbound(privateKey: string, config: unknown): Json {
  if (!isObject(config)) throw new DomainError('provider-a: the service answered without a device config');
  const iface = isObject(config.interface) ? config.interface : {};
  const addrs = isObject(iface.addresses) ? iface.addresses : {};
  const address = [str(addrs.v4) && `${str(addrs.v4)}/32`, str(addrs.v6) && `${str(addrs.v6)}/128`].filter(Boolean);
  const peer = Array.isArray(config.peers) && isObject(config.peers[0]) ? config.peers[0] : null;
  const endpoint = peer && isObject(peer.endpoint) ? str(peer.endpoint.host) : '';
  if (!peer || !str(peer.public_key) || !endpoint || address.length === 0) {
    throw new DomainError('provider-a: the device config lacks the peer key, its endpoint or the interface addresses');
  }
  const settings: Json = {
    mtu: 1420,
    secretKey: privateKey,
    address,
    domainStrategy: 'ForceIP',
    peers: [{ publicKey: str(peer.public_key), allowedIPs: ['0.0.0.0/0', '::/0'], endpoint }],
    noKernelTun: false,
  };
  // The service routes by the three "reserved" bytes of the WireGuard header: the client id, base64.
  const clientId = str(config.client_id);
  if (clientId) {
    try {
      const bytes = fromBase64(clientId);
      if (bytes.length > 0 && bytes.length <= 3) settings.reserved = Array.from(bytes);
    } catch {
      /* not base64: leave reserved out */
    }
  }
  return { tag: TUNNEL_TAG, protocol: 'wireguard', settings };
}

export interface VpnServer {
  id: number;
  name: string;
  hostname: string;
  station: string;
  load: number;
  city: string;
  country: string;
  publicKey: string;
  endpoint: string;
}

/** The VPN service's `v2/servers` answer → servers that offer WireGuard, least loaded first. */
export function parseVpnServers(json: unknown): VpnServer[] {
  if (!isObject(json) || !Array.isArray(json.servers))
    throw new DomainError('provider-b: unexpected server list (no servers array)');
  const cities = new Map<number, { city: string; country: string }>();
  for (const loc of Array.isArray(json.locations) ? json.locations : []) {
    if (!isObject(loc) || typeof loc.id !== 'number' || !isObject(loc.country)) continue;
    cities.set(loc.id, {
      country: str(loc.country.name),
      city: isObject(loc.country.city) ? str(loc.country.city.name) : '',
    });
  }
  const out: VpnServer[] = [];
  for (const s of json.servers) {
    if (!isObject(s) || typeof s.id !== 'number') continue;
    const hostname = str(s.hostname);
    const station = str(s.station);
    if (!/^[A-Za-z0-9.-]{1,253}$/.test(hostname) || !station) continue;
    const techs = Array.isArray(s.technologies) ? s.technologies.filter(isObject) : [];
    const wg = techs.find((t) => t.id === WIREGUARD_TECHNOLOGY_ID);
    const meta = wg && Array.isArray(wg.metadata) ? wg.metadata.filter(isObject) : [];
    const publicKey = str(meta.find((m) => m.name === 'public_key')?.value);
    if (!publicKey) continue;
    const loc =
      Array.isArray(s.location_ids) && typeof s.location_ids[0] === 'number'
        ? cities.get(s.location_ids[0])
        : undefined;
    const endpoint = `${station.includes(':') ? `[${station}]` : station}:${VPN_PORT}`;
    out.push({
      id: s.id,
      name: str(s.name),
      hostname,
      station,
      load: typeof s.load === 'number' ? s.load : 0,
      city: loc?.city ?? '',
      country: loc?.country ?? '',
      publicKey,
      endpoint,
    });
  }
  return out.sort((a, b) => a.load - b.load || a.id - b.id);
}

export function vpnOutbound(privateKey: string, server: VpnServer): Json {
  return {
    tag: `${VPN_TAG_PREFIX}${server.hostname}`,
    protocol: 'wireguard',
    settings: {
      secretKey: privateKey,
      address: [VPN_ADDRESS],
      peers: [{ publicKey: server.publicKey, allowedIPs: ['0.0.0.0/0', '::/0'], endpoint: server.endpoint }],
      noKernelTun: false,
    },
  };
}

export const isVpnTag = (tag: string): boolean => tag.startsWith(VPN_TAG_PREFIX);

/** Tags of the template's outbounds that match. */
export function outboundTags(template: Json, match: (tag: string) => boolean): string[] {
  const obs = Array.isArray(template.outbounds) ? template.outbounds : [];
  return obs
    .filter(isObject)
    .map((o) => str(o.tag))
    .filter((t) => t && match(t));
}

/** Why a WireGuard outbound cannot go into the template under this core, or null when it can. */
export function wireguardRefusal(flavour: string, version: string): string | null {
  if (flavour !== 'v2ray') return null;
  return `WireGuard outbounds need the Xray core; the running core is V2Ray ${version || '4.x'}, which has no WireGuard outbound, so the core template was left unchanged (install Xray with installCore, then apply again)`;
}
