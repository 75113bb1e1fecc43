// provider-a: the tunnel service (in the reference panel, Cloudflare WARP's device API). `reg` registers a
// device with a WireGuard key pair, `license` applies a licence key, `config` re-reads the device and refreshes
// the `warp` outbound, `data` reads usage and account state, `del` unregisters and removes the outbound. The
// account lives in an internal setting; the private key and access token never leave it except into the
// core template (the core needs the key) and the service's Authorization header.
import type { HttpClient } from '../ports/http.js';
import type { Clock } from '../shared/clock.js';
import type { Json } from '../inbounds/model.js';
import { DomainError } from '../shared/errors.js';
import { callJson } from './remote.js';
import { editOutbounds, masked, redactOutbound, resolveWgKeyPair } from './wireguard.js';
import { TUNNEL_TAG, outboundTags, tunnelOutbound, wireguardRefusal } from './outbounds.js';
import type { ProviderCore, ProviderSettings } from './ports.js';

export const TUNNEL_API = 'https://api.cloudflareclient.com/v0a4005';
const CLIENT_VERSION = 'a-6.30-3596';
const SETTING = 'providerA';

interface Account {
  deviceId: string;
  accessToken: string;
  privateKey: string;
  publicKey: string;
  licenseKey: string;
  clientId: string;
  accountType: string;
  registeredAt: number;
}

export interface TunnelDeps {
  http: HttpClient;
  settings: ProviderSettings;
  core: ProviderCore;
  clock: Clock;
  baseUrl?: string;
  timeoutMs?: number;
  deviceName?: string;
  allowPrivate?: boolean;
}

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export interface ApplyResult {
  applied: boolean;
  note: string;
  restarted: boolean;
}

export class TunnelProvider {
  private readonly base: string;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private d: TunnelDeps) {
    this.base = (d.baseUrl || TUNNEL_API).replace(/\/+$/, '');
  }

  /** One action at a time: two `reg` calls at once would register two devices and keep one. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async load(): Promise<Account | null> {
    const v = await this.d.settings.internal(SETTING);
    return isObject(v) && typeof v.deviceId === 'string' && typeof v.accessToken === 'string'
      ? (v as unknown as Account)
      : null;
  }

  private async required(): Promise<Account> {
    const a = await this.load();
    if (!a) throw new DomainError('provider-a: not registered (call reg first)');
    return a;
  }

  private view(a: Account, template?: Json) {
    return {
      registered: true,
      deviceId: a.deviceId,
      publicKey: a.publicKey,
      license: masked(a.licenseKey),
      accountType: a.accountType,
      registeredAt: a.registeredAt,
      ...(template ? { outboundTag: outboundTags(template, (t) => t === TUNNEL_TAG)[0] ?? null } : {}),
    };
  }

  private call(
    what: string,
    path: string,
    a: Account | null,
    init: { method?: 'GET' | 'POST' | 'PUT' | 'DELETE'; body?: unknown } = {},
  ) {
    const headers: Record<string, string> = { 'cf-client-version': CLIENT_VERSION, accept: 'application/json' };
    if (a) headers.authorization = `Bearer ${a.accessToken}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    return callJson(
      this.d.http,
      `provider-a ${what}`,
      {
        url: `${this.base}${path}`,
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        timeoutMs: this.d.timeoutMs,
        allowPrivate: this.d.allowPrivate,
      },
      [a?.accessToken, a?.privateKey, a?.licenseKey],
    );
  }

  /** Puts the outbound into the template (unless the core cannot run it) and reloads the core. */
  private async apply(outbound: Json): Promise<ApplyResult> {
    const st = this.d.core.status();
    const refusal = wireguardRefusal(st.flavour, st.version);
    if (refusal) return { applied: false, note: refusal, restarted: false };
    try {
      const r = await this.d.core.editTemplate((tpl) => {
        const e = editOutbounds(tpl, { put: [outbound] });
        return e ? { template: e.template, result: null } : null;
      });
      return { applied: true, note: '', restarted: r.restarted };
    } catch (err) {
      // The account is the service's either way; the operator fixes the template and calls `config` again.
      return {
        applied: false,
        note: `the outbound was not added: ${err instanceof Error ? err.message : String(err)}`,
        restarted: false,
      };
    }
  }

  async reg(input: { privateKey?: string; publicKey?: string }) {
    const keys = await resolveWgKeyPair(input.privateKey, input.publicKey);
    return this.serial(async () => {
      const { json } = await this.call('registration', '/reg', null, {
        method: 'POST',
        body: {
          key: keys.publicKey,
          install_id: '',
          fcm_token: '',
          tos: new Date(this.d.clock.now()).toISOString(),
          type: 'PC',
          model: 'proxy-panel',
          name: this.d.deviceName || 'proxy-panel',
          locale: 'en_US',
        },
      });
      const r = isObject(json) ? json : {};
      const account = isObject(r.account) ? r.account : {};
      if (!str(r.id) || !str(r.token))
        throw new DomainError('provider-a registration: the answer has no device id or token');
      const config = isObject(r.config) ? r.config : {};
      const a: Account = {
        deviceId: str(r.id),
        accessToken: str(r.token),
        privateKey: keys.privateKey,
        publicKey: keys.publicKey,
        licenseKey: str(account.license),
        clientId: str(config.client_id),
        accountType: str(account.account_type),
        registeredAt: this.d.clock.now(),
      };
      const outbound = tunnelOutbound(a.privateKey, config);
      await this.d.settings.setInternal(SETTING, a);
      const applied = await this.apply(outbound);
      return { account: this.view(a), keyGenerated: keys.generated, outbound: redactOutbound(outbound), ...applied };
    });
  }

  async license(license: string) {
    const key = license.trim();
    if (!/^[A-Za-z0-9-]{26,64}$/.test(key))
      throw new DomainError('license: must be a licence key of 26 or more letters, digits and dashes');
    return this.serial(async () => {
      const a = await this.required();
      const { json } = await this.call('licence', `/reg/${encodeURIComponent(a.deviceId)}/account`, a, {
        method: 'PUT',
        body: { license: key },
      });
      if (!isObject(json) || !str(json.id))
        throw new DomainError('provider-a licence: unexpected answer from the service');
      const next: Account = { ...a, licenseKey: key, accountType: str(json.account_type) || a.accountType };
      await this.d.settings.setInternal(SETTING, next);
      return { account: this.view(next, await this.d.core.template()) };
    });
  }

  /** `config`: the device as the service sees it, and the outbound it implies (refreshed in the template). */
  async config() {
    return this.serial(async () => {
      const a = await this.required();
      const { json } = await this.call('device', `/reg/${encodeURIComponent(a.deviceId)}`, a);
      const r = isObject(json) ? json : {};
      const account = isObject(r.account) ? r.account : {};
      const config = isObject(r.config) ? r.config : {};
      const outbound = tunnelOutbound(a.privateKey, config);
      const next: Account = {
        ...a,
        clientId: str(config.client_id) || a.clientId,
        accountType: str(account.account_type) || a.accountType,
      };
      await this.d.settings.setInternal(SETTING, next);
      const applied = await this.apply(outbound);
      return {
        account: this.view(next),
        device: {
          name: str(r.name),
          model: str(r.model),
          enabled: r.enabled === true,
          warpEnabled: r.warp_enabled === true,
          created: str(r.created),
          updated: str(r.updated),
        },
        outbound: redactOutbound(outbound),
        ...applied,
      };
    });
  }

  /** `data`: the stored account and, from the service, its usage (null with the reason when unreachable). */
  async data() {
    const a = await this.load();
    if (!a) return { registered: false };
    const template = await this.d.core.template();
    try {
      const { json } = await this.call('account', `/reg/${encodeURIComponent(a.deviceId)}/account`, a);
      const r = isObject(json) ? json : {};
      return {
        ...this.view(a, template),
        accountType: str(r.account_type) || a.accountType,
        usage: {
          premiumData: num(r.premium_data),
          quota: num(r.quota),
          usage: num(r.usage),
          warpPlus: r.warp_plus === true,
          role: str(r.role),
          referralCount: num(r.referral_count),
        },
      };
    } catch (err) {
      return { ...this.view(a, template), usage: null, usageError: err instanceof Error ? err.message : String(err) };
    }
  }

  /** `del`: unregisters the device (a failure there is reported, not fatal), forgets it, removes the outbound. */
  async del() {
    return this.serial(async () => {
      const a = await this.load();
      let remoteNote = '';
      if (a) {
        try {
          await this.call('unregister', `/reg/${encodeURIComponent(a.deviceId)}`, a, { method: 'DELETE' });
        } catch (err) {
          remoteNote = `${err instanceof Error ? err.message : String(err)}; the device was forgotten here anyway`;
        }
      }
      const r = await this.d.core.editTemplate((tpl) => {
        const e = editOutbounds(tpl, { remove: (t) => t === TUNNEL_TAG });
        return e ? { template: e.template, result: e } : null;
      });
      await this.d.settings.setInternal(SETTING, null);
      return {
        registered: false,
        wasRegistered: !!a,
        removedOutbounds: r.result?.removed ?? [],
        removedRules: r.result?.rulesRemoved ?? 0,
        restarted: r.restarted,
        note: remoteNote,
      };
    });
  }
}
