// Who may open the WebSocket (spec Authentication 5): a valid session cookie only — a Bearer token alone is
// refused — and a page must come from the panel itself (Origin, when sent, equal to the Host the request was sent
// to), which stops another site from riding the admin's cookie (cross-site WebSocket hijacking).

export interface UpgradeRequest {
  /** A valid session cookie came with the request. */
  session: boolean;
  /** An Authorization: Bearer header came with the request. */
  bearer: boolean;
  origin: string | undefined;
  host: string | undefined;
  /** The panel itself serves TLS: a page of it has an https origin. */
  secure: boolean;
}

export type UpgradeDecision = { ok: true } | { ok: false; kind: 'unauthenticated' | 'forbidden'; reason: string };

/**
 * Whether `origin` (an Origin header) is the panel reached through `host` (the Host header). Default ports are
 * the same origin (`https://h` and Host `h:443`). An Origin is exactly scheme://host[:port]: one with userinfo,
 * a path or anything else is refused. When the panel serves TLS itself, an http origin is another site (a
 * plaintext page of the same host); without TLS either scheme is accepted, because a reverse proxy in front may
 * terminate TLS.
 */
export function sameOrigin(origin: string, host: string, secure = false): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (secure && url.protocol !== 'https:') return false;
  if (url.origin.toLowerCase() !== origin.trim().toLowerCase()) return false;
  const defaultPort = url.protocol === 'https:' ? ':443' : ':80';
  let h = host.trim().toLowerCase();
  if (h.endsWith(defaultPort)) h = h.slice(0, -defaultPort.length);
  return url.host.toLowerCase() === h;
}

export function checkUpgrade(req: UpgradeRequest): UpgradeDecision {
  if (!req.session) {
    return {
      ok: false,
      kind: 'unauthenticated',
      reason: req.bearer
        ? 'the WebSocket accepts only a session cookie; Bearer tokens are refused'
        : 'no valid session',
    };
  }
  // A browser always sends Origin, so a request without one (a script, a CLI) cannot be a cross-site one.
  if (!req.origin) return { ok: true };
  if (!req.host || !sameOrigin(req.origin, req.host, req.secure)) {
    return { ok: false, kind: 'forbidden', reason: `Origin ${req.origin} is not this panel` };
  }
  return { ok: true };
}
