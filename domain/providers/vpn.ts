// provider-b: the VPN service (in the reference panel, NordVPN's public API). `countries` and `servers` read
// the public catalogue; `reg` trades an access token for the account's WireGuard private key, `setKey` takes
// the key directly; `servers` with `serverIds` puts those servers' WireGuard outbounds (`nord-<hostname>`) into
// the core template; `data` tells what is stored; `del` forgets the key and removes the outbounds.
import type { HttpClient } from '../ports/http.js';
import type { Clock } from '../shared/clock.js';
import type { Json } from '../inbounds/model.js';
import { DomainError } from '../shared/errors.js';
import { callJson } from './remote.js';
import { editOutbounds, parseWgKey, redactOutbound, wgPublicKey } from './wireguard.js';
import {
  WIREGUARD_TECHNOLOGY_ID,
  isVpnTag,
  outboundTags,
  parseVpnServers,
  vpnOutbound,
  wireguardRefusal,
} from './outbounds.js';
import type { ProviderCore, ProviderSettings } from './ports.js';
import { base64 } from '../shared/random.js';

export const VPN_API = 'https://api.nordvpn.com';
const SETTING = 'providerB';
const MAX_CHOSEN = 20;

interface Account {
  privateKey: string;
  token: string;
  source: 'token' | 'key';
  savedAt: number;
}

export interface VpnDeps {
  http: HttpClient;
  settings: ProviderSettings;
  core: ProviderCore;
  clock: Clock;
  baseUrl?: string;
  timeoutMs?: number;
  allowPrivate?: boolean;
}

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export class VpnProvider {
  private readonly base: string;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private d: VpnDeps) {
    this.base = (d.baseUrl || VPN_API).replace(/\/+$/, '');
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async load(): Promise<Account | null> {
    const v = await this.d.settings.internal(SETTING);
    return isObject(v) && typeof v.privateKey === 'string' && v.privateKey ? (v as unknown as Account) : null;
  }

  private get(what: string, path: string, headers: Record<string, string> = {}, secrets: string[] = []) {
    return callJson(
      this.d.http,
      `provider-b ${what}`,
      {
        url: `${this.base}${path}`,
        headers: { accept: 'application/json', ...headers },
        timeoutMs: this.d.timeoutMs,
        allowPrivate: this.d.allowPrivate,
      },
      secrets,
    );
  }

  private async view(a: Account | null) {
    const tags = outboundTags(await this.d.core.template(), isVpnTag);
    if (!a) return { registered: false, outbounds: tags };
    return {
      registered: true,
      source: a.source,
      hasToken: !!a.token,
      publicKey: await wgPublicKey(parseWgKey(a.privateKey)!),
      savedAt: a.savedAt,
      outbounds: tags,
    };
  }

  async countries() {
    const { json } = await this.get('countries', '/v1/countries');
    if (!Array.isArray(json)) throw new DomainError('provider-b countries: unexpected answer (not a list)');
    return json
      .filter(isObject)
      .filter((c) => typeof c.id === 'number')
      .map((c) => ({
        id: c.id as number,
        name: str(c.name),
        code: str(c.code),
        cities: (Array.isArray(c.cities) ? c.cities : [])
          .filter(isObject)
          .map((x) => ({ id: x.id, name: str(x.name) })),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** `servers`: the country's WireGuard servers, least loaded first; with `serverIds`, those become outbounds. */
  async servers(countryId: number, serverIds: number[] = []) {
    const { json } = await this.get(
      'servers',
      `/v2/servers?limit=0&filters[servers_technologies][id]=${WIREGUARD_TECHNOLOGY_ID}&filters[country_id]=${countryId}`,
    );
    const servers = parseVpnServers(json);
    if (serverIds.length === 0) return { servers };
    if (serverIds.length > MAX_CHOSEN) throw new DomainError(`serverIds: at most ${MAX_CHOSEN} servers at once`);
    const chosen = serverIds.map((id) => {
      const s = servers.find((x) => x.id === id);
      if (!s) throw new DomainError(`serverIds: ${id} is not a WireGuard server of country ${countryId}`);
      return s;
    });
    return this.serial(async () => {
      const a = await this.load();
      if (!a) throw new DomainError('provider-b: no private key yet (call reg with an access token, or setKey)');
      const st = this.d.core.status();
      const refusal = wireguardRefusal(st.flavour, st.version);
      if (refusal) throw new DomainError(refusal);
      const outbounds = chosen.map((s) => vpnOutbound(a.privateKey, s));
      const r = await this.d.core.editTemplate((tpl) => {
        const e = editOutbounds(tpl, { put: outbounds });
        return e ? { template: e.template, result: null } : null;
      });
      return { servers, added: outbounds.map((o) => redactOutbound(o)), restarted: r.restarted };
    });
  }

  /** `reg`: the account's WireGuard private key from the service, with the access token (HTTP basic `token:`). */
  async reg(token: string) {
    const t = token.trim();
    if (!/^[A-Za-z0-9._~+/=-]{16,512}$/.test(t))
      throw new DomainError("token: must be the access token from the VPN service's account page");
    const { json } = await this.get(
      'credentials',
      '/v1/users/services/credentials',
      { authorization: `Basic ${btoa(`token:${t}`)}` },
      [t],
    );
    const key = isObject(json) ? str(json.nordlynx_private_key) : '';
    if (!parseWgKey(key))
      throw new DomainError('provider-b credentials: the answer has no WireGuard (NordLynx) private key');
    return this.save({ privateKey: base64(parseWgKey(key)!), token: t, source: 'token', savedAt: this.d.clock.now() });
  }

  /** `setKey`: a WireGuard private key given directly. */
  async setKey(key: string) {
    const raw = parseWgKey(key);
    if (!raw) throw new DomainError('key: must be a WireGuard private key (32 bytes in base64)');
    return this.save({ privateKey: base64(raw), token: '', source: 'key', savedAt: this.d.clock.now() });
  }

  /** Stores the account; outbounds already in the template get the new key (they would not connect otherwise). */
  private save(a: Account) {
    return this.serial(async () => {
      await this.d.settings.setInternal(SETTING, a);
      let restarted = false;
      let note = '';
      try {
        const r = await this.d.core.editTemplate((tpl) => {
          const outbounds = (Array.isArray(tpl.outbounds) ? tpl.outbounds : [])
            .filter(isObject)
            .filter((o) => isVpnTag(str(o.tag)) && isObject(o.settings) && o.settings.secretKey !== a.privateKey)
            .map((o) => ({ ...o, settings: { ...(o.settings as Json), secretKey: a.privateKey } }));
          const e = outbounds.length ? editOutbounds(tpl, { put: outbounds }) : null;
          return e ? { template: e.template, result: null } : null;
        });
        restarted = r.restarted;
      } catch (err) {
        note = `the existing outbounds keep the old key: ${err instanceof Error ? err.message : String(err)}`;
      }
      return { ...(await this.view(a)), restarted, note };
    });
  }

  async data() {
    return this.view(await this.load());
  }

  async del() {
    return this.serial(async () => {
      const a = await this.load();
      const r = await this.d.core.editTemplate((tpl) => {
        const e = editOutbounds(tpl, { remove: isVpnTag });
        return e ? { template: e.template, result: e } : null;
      });
      await this.d.settings.setInternal(SETTING, null);
      return {
        registered: false,
        wasRegistered: !!a,
        removedOutbounds: r.result?.removed ?? [],
        removedRules: r.result?.rulesRemoved ?? 0,
        restarted: r.restarted,
      };
    });
  }
}
