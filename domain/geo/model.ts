// Custom geo sources (spec: Custom geo source): extra geoip/geosite data files downloaded from a URL into the core's
// asset folder and usable in routing rules as `ext:<fileName>:<tag>`. Pure shapes, normalisation and checks.
import { z } from 'zod';

/** Allowed types. The spec shows `geoip`; `geosite` is the reference panel's other type. */
export const GEO_TYPES = ['geoip', 'geosite'] as const;
export type GeoType = (typeof GEO_TYPES)[number];

/** The geo files the core ships with / the server tools download; their names cannot be taken by a custom source. */
export const BUILTIN_GEO_FILES: { type: GeoType; fileName: string; alias: string }[] = [
  { type: 'geoip', fileName: 'geoip.dat', alias: 'geoip' },
  { type: 'geosite', fileName: 'geosite.dat', alias: 'geosite' },
  { type: 'geoip', fileName: 'geoip_IR.dat', alias: 'geoip_ir' },
  { type: 'geosite', fileName: 'geosite_IR.dat', alias: 'geosite_ir' },
  { type: 'geoip', fileName: 'geoip_RU.dat', alias: 'geoip_ru' },
  { type: 'geosite', fileName: 'geosite_RU.dat', alias: 'geosite_ru' },
];

export const ALIAS_MAX = 64;
export const URL_MAX = 2048;
/** A real geo .dat is far larger; anything this small is an error page or an empty file. */
export const MIN_GEO_BYTES = 64;

/** Stored: `pending` (never downloaded), `ok`, or `error: <message>`. */
export interface GeoRecord {
  id: number;
  type: GeoType;
  alias: string;
  url: string;
  status: string;
  /** Unix seconds of the last successful download; 0 never. */
  lastDownload: number;
}

export type GeoWrite = Omit<GeoRecord, 'id'>;

export interface GeoView {
  id: number;
  type: GeoType;
  alias: string;
  url: string;
  status: 'pending' | 'ok' | 'error';
  /** The last download error ('' when the last download worked). */
  error: string;
  lastDownload: number;
  fileName: string;
  /** How to use it in a routing rule, e.g. `ext:geoip_mylist.dat:tag`. */
  usage: string;
}

export interface GeoAlias {
  alias: string;
  type: GeoType;
  fileName: string;
  builtin: boolean;
  usage: string;
}

/** Lower-case; every run of characters outside [a-z0-9_-] becomes `_`; leading/trailing `_`/`-` trimmed. */
export function normaliseAlias(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
}

export const extensionOf = (url: string): 'dat' | 'json' => (/\.json$/i.test(new URL(url).pathname) ? 'json' : 'dat');

export const fileNameOf = (r: Pick<GeoRecord, 'type' | 'alias' | 'url'>): string =>
  `${r.type}_${r.alias}.${extensionOf(r.url)}`;

export const usageOf = (fileName: string): string => `ext:${fileName}:<tag>`;

export function toGeoView(r: GeoRecord): GeoView {
  const fileName = fileNameOf(r);
  const status = r.status === 'ok' ? 'ok' : r.status.startsWith('error') ? 'error' : 'pending';
  return {
    id: r.id,
    type: r.type,
    alias: r.alias,
    url: r.url,
    status,
    error: status === 'error' ? r.status.replace(/^error:\s*/, '') : '',
    lastDownload: r.lastDownload,
    fileName,
    usage: usageOf(fileName),
  };
}

/** Why this alias cannot be used with this type, or null. */
export function aliasProblem(type: GeoType, alias: string): string | null {
  if (!alias) return 'alias: must contain at least one letter or digit';
  if (alias.length > ALIAS_MAX) return `alias: must be at most ${ALIAS_MAX} characters`;
  const file = `${type}_${alias}`.toLowerCase();
  const clash = BUILTIN_GEO_FILES.find(
    (b) => b.alias === alias || b.fileName.replace(/\.dat$/, '').toLowerCase() === file,
  );
  if (clash) return `alias: '${alias}' is reserved by the built-in file ${clash.fileName}`;
  return null;
}

/** Checks a source URL: http(s), a host, no credentials, a path ending in .dat or .json. */
export function urlProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'url: must be an absolute http(s) URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'url: must use http or https';
  if (!u.hostname) return 'url: must name a host';
  if (u.username || u.password) return 'url: must not contain credentials';
  if (!/\.(dat|json)$/i.test(u.pathname))
    return 'url: must point to a .dat or .json file (the path must end in .dat or .json)';
  return null;
}

/** Checks a downloaded body before it replaces the cached file. */
export function contentProblem(body: Uint8Array, ext: 'dat' | 'json'): string | null {
  if (body.length < MIN_GEO_BYTES) return `the file is too small (${body.length} bytes) to be a geo data file`;
  const head = new TextDecoder().decode(body.subarray(0, 256)).trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html'))
    return 'the server returned an HTML page, not a geo data file';
  if (ext === 'json') {
    try {
      JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    } catch {
      return 'the .json file is not valid JSON';
    }
  }
  return null;
}

const type = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.enum(GEO_TYPES, { error: `must be one of: ${GEO_TYPES.join(', ')}` }),
);

export const geoInput = z.object({
  type,
  alias: z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters').transform(normaliseAlias),
  url: z
    .string({ error: 'must be a string' })
    .max(URL_MAX, `must be at most ${URL_MAX} characters`)
    .transform((s) => s.trim())
    .superRefine((s, ctx) => {
      const p = urlProblem(s);
      if (p) ctx.addIssue({ code: 'custom', message: p.replace(/^url: /, '') });
    }),
});
export type GeoInput = z.infer<typeof geoInput>;
