// Which host a link advertises: the inbound's routable listen address, else the configured public host
// (subURI's host, else subDomain), else the host the request came to.

/** Strips brackets and a port from a Host-header value: `[::1]:80` → `::1`, `a.b:443` → `a.b`. */
export function hostWithoutPort(hostHeader: string): string {
  const h = hostHeader.trim();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(1, end) : h.slice(1);
  }
  const colons = h.split(':').length - 1;
  if (colons === 1) return h.slice(0, h.indexOf(':'));
  return h; // a bare IPv6 address or a plain name
}

const isIPv4 = (h: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(h);

/** True for a host a remote client can reach: not empty, not loopback, not the unspecified address, not a socket. */
export function isRoutableHost(host: string): boolean {
  const h = host
    .trim()
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  if (!h || h.startsWith('@') || h.startsWith('/')) return false;
  if (h === 'localhost' || h.endsWith('.localhost')) return false;
  if (isIPv4(h)) return !(h.startsWith('127.') || h === '0.0.0.0');
  if (h.includes(':')) {
    const compact = h.replace(/^0*:/, ':');
    return !(
      compact === '::' ||
      compact === '::1' ||
      /^(0+:){7}0*1$/.test(h) ||
      /^(0+:){7}0+$/.test(h) ||
      /^::ffff:127\./.test(h)
    );
  }
  return true;
}

/** The configured public host: the host part of `subURI`, else `subDomain` (empty when neither is set). */
export function configuredPublicHost(subURI: string, subDomain: string): string {
  if (subURI) {
    try {
      const h = new URL(subURI).hostname.replace(/^\[|\]$/g, '');
      if (h) return h;
    } catch {
      /* not a URL: fall through */
    }
  }
  return subDomain.trim();
}

/** The host a link for `listen` advertises. */
export function advertisedHost(listen: string, publicHost: string, requestHost: string): string {
  if (isRoutableHost(listen)) return listen.trim().replace(/^\[|\]$/g, '');
  if (publicHost) return publicHost;
  return hostWithoutPort(requestHost);
}

/** A host as it appears in a URL authority: IPv6 addresses get brackets. */
export const urlHost = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
