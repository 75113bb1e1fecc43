// Filtering the core's log lines for /corelogs: keyword filter, and the direct / blocked / proxy classes by the
// outbound tag an access-log line names (`[in -> out]` in Xray, `[out]` in V2Ray).

export interface CoreLogFilter {
  filter: string;
  showDirect: boolean;
  showBlocked: boolean;
  showProxy: boolean;
}

export type LogClass = 'direct' | 'blocked' | 'proxy';

/** Freedom and blackhole outbound tags of a core config template (defaults `direct` / `blocked`). */
export function outboundClasses(template: unknown): { direct: string[]; blocked: string[] } {
  const direct: string[] = [];
  const blocked: string[] = [];
  const outbounds =
    template && typeof template === 'object' ? (template as { outbounds?: unknown }).outbounds : undefined;
  if (Array.isArray(outbounds)) {
    for (const o of outbounds) {
      if (!o || typeof o !== 'object') continue;
      const { tag, protocol } = o as { tag?: unknown; protocol?: unknown };
      if (typeof tag !== 'string' || !tag) continue;
      if (protocol === 'freedom') direct.push(tag);
      else if (protocol === 'blackhole') blocked.push(tag);
    }
  }
  return { direct: direct.length ? direct : ['direct'], blocked: blocked.length ? blocked : ['blocked'] };
}

export function classify(line: string, classes: { direct: string[]; blocked: string[] }): LogClass {
  const names = (tags: string[]) => tags.some((t) => line.includes(`${t}]`));
  if (names(classes.direct)) return 'direct';
  if (names(classes.blocked)) return 'blocked';
  return 'proxy';
}

/** The last `count` lines that pass the filter (API self-traffic and empty lines are dropped). */
export function filterCoreLog(
  lines: string[],
  count: number,
  f: CoreLogFilter,
  classes: { direct: string[]; blocked: string[] },
): string[] {
  const keep: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.includes('api -> api') || line.includes('[api]')) continue;
    if (f.filter && !line.toLowerCase().includes(f.filter.toLowerCase())) continue;
    const cls = classify(line, classes);
    if (cls === 'direct' && !f.showDirect) continue;
    if (cls === 'blocked' && !f.showBlocked) continue;
    if (cls === 'proxy' && !f.showProxy) continue;
    keep.push(line);
  }
  return keep.slice(-count);
}
