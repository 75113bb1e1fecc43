// Subscription use cases: links by email and by subscription id (panel API), and the subscription server's
// formats (base64 feed, JSON configs, Clash YAML, HTML page) with their headers.
import type { Store } from '../ports/store.js';
import type { SubscriptionData } from '../ports/subscription-repo.js';
import type { Clock } from '../shared/clock.js';
import type { Settings } from '../settings/schema.js';
import { base64 } from '../shared/random.js';
import { advertisedHost, configuredPublicHost } from '../links/address.js';
import { profilesFor, throughMaster } from '../links/profile.js';
import { shareLink } from '../links/uri.js';
import type { ProxyProfile } from '../links/model.js';
import { renderJson } from './json.js';
import { renderClash } from './clash.js';
import { pageScriptSource, renderPage } from './html.js';
import { summarise, userinfoHeader } from './summary.js';

/** What the handler knows about the request, after trusted-proxy handling. */
export interface RequestView {
  /** The host the client addressed (Host or a trusted X-Forwarded-Host), without port. */
  host: string;
  /** `scheme://host[:port]` as the client sees it, for absolute URLs. */
  origin: string;
}

export type SubFormat = 'sub' | 'json' | 'clash' | 'html';

export interface SubResponse {
  contentType: string;
  headers: Record<string, string>;
  body: string;
}

/** A client seen within this many seconds counts as online on the info page. */
export const ONLINE_WINDOW_SEC = 120;

const utf8 = new TextEncoder();
/** A header value made of visible ASCII: anything else (control characters, non-ASCII) is percent-encoded. */
export const headerSafe = (v: string): string =>
  v.replace(/[^\x20-\x7e]/gu, (ch) => encodeURIComponent(ch === '\t' ? ' ' : ch));
const b64 = (s: string) => base64(utf8.encode(s));

export interface SettingsSource {
  effective(): Promise<Settings>;
}
/** The events that make cached subscriptions stale (an EventBus satisfies it). */
export interface ChangeFeed {
  on(name: 'clients.changed' | 'inbounds.changed' | 'settings.changed' | 'groups.changed', fn: () => void): unknown;
  on(name: 'traffic.tick', fn: (p: { clients: { email: string }[] }) => void): unknown;
}

/** How long a cached subscription is served at most, for changes no event announces (another process). */
export const CACHE_TTL_MS = 5000;
export const CACHE_MAX = 10_000;

interface CacheEntry {
  at: number;
  data: SubscriptionData;
  /** Rendered non-HTML responses by format, host and origin. */
  rendered: Map<string, SubResponse | null>;
}

export class SubscriptionService {
  private cache = new Map<string, CacheEntry>();
  /** email → subIds cached with that client, for per-client invalidation on traffic ticks. */
  private byEmail = new Map<string, Set<string>>();

  private hasEvents: boolean;

  constructor(
    private store: Store,
    private settings: SettingsSource,
    private clock: Clock,
    events?: ChangeFeed,
  ) {
    this.hasEvents = !!events;
    if (events) {
      const clear = () => this.clearCache();
      events.on('clients.changed', clear);
      events.on('inbounds.changed', clear);
      events.on('settings.changed', clear);
      events.on('groups.changed', clear);
      events.on('traffic.tick', (p) => {
        for (const c of p.clients) for (const subId of this.byEmail.get(c.email) ?? []) this.cache.delete(subId);
      });
    }
  }

  clearCache(): void {
    this.cache.clear();
    this.byEmail.clear();
  }

  /**
   * The subscription's rows, cached per subId until an event says they changed (clients, inbounds, settings,
   * the client's traffic counters) and at most CACHE_TTL_MS. Only the subscription server reads through it; the
   * panel's link endpoints always read the database. Without an event feed nothing is cached.
   */
  private async cached(subId: string, useCache: boolean): Promise<CacheEntry> {
    const now = this.clock.now();
    const hit = useCache ? this.cache.get(subId) : undefined;
    if (hit && now - hit.at < CACHE_TTL_MS && now >= hit.at) return hit;
    const data = await this.store.subscriptions.bySubId(subId);
    const entry: CacheEntry = { at: now, data, rendered: new Map() };
    if (useCache) {
      if (this.cache.size >= CACHE_MAX) this.clearCache();
      this.cache.set(subId, entry);
      for (const c of data.clients) {
        let set = this.byEmail.get(c.client.email);
        if (!set) this.byEmail.set(c.client.email, (set = new Set()));
        set.add(subId);
      }
    }
    return entry;
  }

  /** Profiles of the enabled clients (or all, for the per-email admin view), inbound by inbound. */
  private profiles(data: SubscriptionData, s: Settings, req: RequestView, enabledOnly: boolean): ProxyProfile[] {
    const publicHost = configuredPublicHost(s.subURI, s.subDomain);
    const out: ProxyProfile[] = [];
    for (const own of data.inbounds) {
      const master = data.masters[own.id];
      const inbound = master ? throughMaster(own, master) : own;
      const host = advertisedHost(inbound.listen, publicHost, req.host);
      for (const c of data.clients) {
        if (enabledOnly && !c.client.enable) continue;
        if (!c.inboundIds.includes(own.id)) continue;
        out.push(...profilesFor(inbound, c.client, host));
      }
    }
    return out;
  }

  /** Every link of one client across all attached inbounds; null when the email is unknown. */
  async linksByEmail(email: string, req: RequestView): Promise<string[] | null> {
    const data = await this.store.subscriptions.byEmail(email);
    if (!data) return null;
    return this.profiles(data, await this.settings.effective(), req, false).map(shareLink);
  }

  /** Plain links of the enabled clients with this subId on enabled inbounds (empty when none). */
  async linksBySubId(subId: string, req: RequestView): Promise<string[]> {
    const data = await this.store.subscriptions.bySubId(subId);
    return this.profiles(data, await this.settings.effective(), req, true).map(shareLink);
  }

  /** Absolute URLs of the subscription in each enabled format. */
  subscriptionUrls(s: Settings, subId: string, req: RequestView): { sub: string; json: string; clash: string } {
    let origin = req.origin;
    let subBase = `${origin}${s.subPath}`;
    if (s.subURI) {
      try {
        origin = new URL(s.subURI).origin;
        subBase = s.subURI.endsWith('/') ? s.subURI : `${s.subURI}/`;
      } catch {
        /* keep the request origin */
      }
    }
    const id = encodeURIComponent(subId);
    return {
      sub: `${subBase}${id}`,
      json: s.subJsonEnable ? `${origin}${s.subJsonPath}${id}` : '',
      clash: s.subClashEnable ? `${origin}${s.subClashPath}${id}` : '',
    };
  }

  /**
   * One subscription response, or null for 404 (unknown id, or no client of it on an enabled inbound). A
   * subscription whose clients are all disabled still answers (no links, the usage headers show why).
   */
  async render(format: SubFormat, subId: string, req: RequestView, s?: Settings): Promise<SubResponse | null> {
    const settings = s ?? (await this.settings.effective());
    const entry = await this.cached(subId, this.cacheEnabled);
    const key = `${format}\n${req.host}\n${req.origin}`;
    if (format !== 'html' && entry.rendered.has(key)) return entry.rendered.get(key)!;
    const res = this.build(format, subId, req, settings, entry.data, format === 'html' ? await pageScriptSource() : '');
    if (format !== 'html') entry.rendered.set(key, res);
    return res;
  }

  private get cacheEnabled(): boolean {
    return this.hasEvents;
  }

  private build(
    format: SubFormat,
    subId: string,
    req: RequestView,
    settings: Settings,
    data: SubscriptionData,
    scriptSrc: string,
  ): SubResponse | null {
    if (data.clients.length === 0) return null;
    const now = this.clock.now();
    const summary = summarise(data.clients, now);
    const profiles = this.profiles(data, settings, req, true);
    const urls = this.subscriptionUrls(settings, subId, req);
    const title = settings.subTitle || (summary.emails.length === 1 ? summary.emails[0]! : subId);

    const headers: Record<string, string> = {
      'Subscription-Userinfo': userinfoHeader(summary),
      'Profile-Title': `base64:${b64(title)}`,
      'Profile-Update-Interval': String(settings.subUpdates),
      'Profile-Web-Page-Url': headerSafe(settings.subProfileUrl || urls.sub),
      'Routing-Enable': String(settings.subEnableRouting),
      'Cache-Control': 'no-cache, no-store, must-revalidate',
      'X-Content-Type-Options': 'nosniff',
    };
    if (settings.subSupportUrl) headers['Support-Url'] = headerSafe(settings.subSupportUrl);
    if (settings.subAnnounce) headers.Announce = `base64:${b64(settings.subAnnounce)}`;
    if (settings.subEnableRouting && settings.subRoutingRules)
      headers.Routing = headerSafe(settings.subRoutingRules.replace(/[\r\n]+/g, ' '));

    switch (format) {
      case 'sub': {
        const text = profiles.map(shareLink).join('\n');
        return { contentType: 'text/plain; charset=utf-8', headers, body: settings.subEncrypt ? b64(text) : text };
      }
      case 'json':
        return { contentType: 'application/json; charset=utf-8', headers, body: renderJson(profiles) };
      case 'clash': {
        const ascii = title.replace(/[^A-Za-z0-9._-]+/g, '_') || 'clash';
        headers['Content-Disposition'] =
          `attachment; filename="${ascii}.yaml"; filename*=UTF-8''${encodeURIComponent(title)}.yaml`;
        return { contentType: 'text/yaml; charset=utf-8', headers, body: renderClash(profiles) };
      }
      case 'html': {
        const body = renderPage({
          title,
          summary,
          nowMs: now,
          timeZone: settings.timeLocation,
          onlineWindowSec: ONLINE_WINDOW_SEC,
          links: profiles.map((p) => ({ name: p.name, url: shareLink(p) })),
          urls: [
            { name: 'Subscription link', url: urls.sub },
            ...(urls.json ? [{ name: 'JSON subscription', url: urls.json }] : []),
            ...(urls.clash ? [{ name: 'Clash / Mihomo', url: urls.clash }] : []),
          ],
          supportUrl: settings.subSupportUrl,
          announce: settings.subAnnounce,
        });
        headers['Content-Security-Policy'] =
          `default-src 'none'; script-src ${scriptSrc}; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
        headers['Referrer-Policy'] = 'no-referrer';
        return { contentType: 'text/html; charset=utf-8', headers, body };
      }
    }
  }
}
