// Live updates of the visible client rows from push messages, without a refetch: `client_stats` carries the
// traffic that moved since the last tick (deltas), `traffic` the emails online now. Pure functions.
import type { ClientPage } from '../../domain/clients/model.js';

export function applyClientStats(page: ClientPage, moved: { email: string; up: number; down: number }[]): ClientPage {
  const byEmail = new Map(moved.map((m) => [m.email, m]));
  let changed = false;
  const items = page.items.map((c) => {
    const m = byEmail.get(c.email);
    if (!m) return c;
    changed = true;
    return { ...c, traffic: { ...c.traffic, up: c.traffic.up + m.up, down: c.traffic.down + m.down } };
  });
  return changed ? { ...page, items } : page;
}

/** The summary's online list (capped server-side) replaced by the live one; the count follows it. */
export function applyOnlines(page: ClientPage, onlines: string[]): ClientPage {
  return { ...page, summary: { ...page.summary, online: onlines, onlineCount: onlines.length } };
}
