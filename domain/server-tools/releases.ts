// Pure helpers for core releases and geo files: the GitHub release list, the `.dgst` checksum sidecar, and the
// allow-list of geo files with their sources.

/** `vX.Y.Z` tags of the non-draft releases, newest first (by version, not by list order). */
export function parseReleaseTags(json: unknown): string[] {
  if (!Array.isArray(json)) throw new Error('unexpected release list (not an array)');
  const tags = new Set<string>();
  for (const r of json) {
    if (!r || typeof r !== 'object') continue;
    const rel = r as { tag_name?: unknown; draft?: unknown };
    if (rel.draft === true || typeof rel.tag_name !== 'string') continue;
    if (/^v\d+\.\d+\.\d+$/.test(rel.tag_name)) tags.add(rel.tag_name);
  }
  return [...tags].sort(compareTagsDesc);
}

export function compareTagsDesc(a: string, b: string): number {
  const pa = a.slice(1).split('.').map(Number);
  const pb = b.slice(1).split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i]! - pa[i]!;
  return 0;
}

/** `latest` or a version with or without the `v`; null when it is neither. */
export function normaliseVersion(input: string): string | null {
  const v = input.trim();
  if (v === 'latest') return 'latest';
  const m = /^v?(\d{1,4}\.\d{1,4}\.\d{1,4})$/.exec(v);
  return m ? `v${m[1]}` : null;
}

/** The SHA2-256 hex from an XTLS `.dgst` file (lines `ALGO= hex`). */
export function parseDigestSha256(text: string): string {
  for (const line of text.split('\n')) {
    const m = /^SHA2-256=\s*([0-9a-fA-F]+)\s*$/.exec(line.trim());
    if (!m) continue;
    if (m[1]!.length !== 64) throw new Error('malformed SHA2-256 entry in the checksum file');
    return m[1]!.toLowerCase();
  }
  throw new Error('no SHA2-256 entry in the checksum file');
}

export interface GeoSource {
  /** `owner/repo` on GitHub; the file is the repo's latest release asset `asset`. */
  repo: string;
  asset: string;
}

/** Geo files the panel may download (the only names accepted), and which of them "update all" refreshes. */
export const GEO_FILES: Record<string, GeoSource> = {
  'geoip.dat': { repo: 'Loyalsoldier/v2ray-rules-dat', asset: 'geoip.dat' },
  'geosite.dat': { repo: 'Loyalsoldier/v2ray-rules-dat', asset: 'geosite.dat' },
  'geoip_IR.dat': { repo: 'chocolate4u/Iran-v2ray-rules', asset: 'geoip.dat' },
  'geosite_IR.dat': { repo: 'chocolate4u/Iran-v2ray-rules', asset: 'geosite.dat' },
  'geoip_RU.dat': { repo: 'runetfreedom/russia-v2ray-rules-dat', asset: 'geoip.dat' },
  'geosite_RU.dat': { repo: 'runetfreedom/russia-v2ray-rules-dat', asset: 'geosite.dat' },
};
export const DEFAULT_GEO_FILES = ['geoip.dat', 'geosite.dat'];

export const isGeoFileName = (name: string): boolean => Object.hasOwn(GEO_FILES, name);

/** Release tags `vX.Y.Z` of non-draft, non-prerelease releases, newest first (the panel's own feed). */
export function parseStableTags(json: unknown): string[] {
  if (!Array.isArray(json)) throw new Error('unexpected release list (not an array)');
  return parseReleaseTags(
    json.filter((r) => !(r && typeof r === 'object' && (r as { prerelease?: unknown }).prerelease === true)),
  );
}

/** Negative when a < b, positive when a > b, for `X.Y.Z` with or without the leading `v`. */
export function compareVersions(a: string, b: string): number {
  const pa = a
    .replace(/^v/, '')
    .split('.')
    .map((x) => Number.parseInt(x, 10) || 0);
  const pb = b
    .replace(/^v/, '')
    .split('.')
    .map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** The SHA-256 hex from a `sha256sum` line (`<hex>  <file>`). */
export function parseSha256Sum(text: string): string {
  const m = /^([0-9a-fA-F]{64})\b/.exec(text.trim());
  if (!m) throw new Error('the checksum file is not a sha256sum line');
  return m[1]!.toLowerCase();
}
