// Proxy links: pure builders shared by /panel/api/clients/links, /subLinks and the subscription server.
import type { LinkClient, LinkInbound } from './model.js';
import { profilesFor } from './profile.js';
import { shareLink } from './uri.js';

export * from './model.js';
export { profilesFor, remarkOf } from './profile.js';
export { shareLink, pct } from './uri.js';
export { advertisedHost, configuredPublicHost, hostWithoutPort, isRoutableHost, urlHost } from './address.js';

/** Every link of one client on one inbound (one per external proxy entry; none for protocols without a URL form). */
export function linksFor(inbound: LinkInbound, client: LinkClient, host: string): string[] {
  return profilesFor(inbound, client, host).map(shareLink);
}
