// Remote panels (nodes): the stored record, the view the API returns, the input schemas and the probe result
// (spec: Node (remote panel)). Pure shapes and parsing; no I/O.
import { z } from 'zod';
import { boolish, intish } from '../clients/input.js';

/**
 * Health of a node as last seen by a probe or heartbeat:
 * - `unknown`: never probed since it was added or its connection details changed;
 * - `online`: the last probe got a successful status envelope;
 * - `offline`: the last probe could not reach it (refused, timed out, DNS, TLS, blocked address);
 * - `error`: it answered, but not with a usable status (HTTP error such as 401/404, success=false, not JSON).
 */
export const NODE_STATUSES = ['unknown', 'online', 'offline', 'error'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

export const NODE_SCHEMES = ['http', 'https'] as const;
/** How an https node's certificate is trusted (ignored for http). */
export const NODE_TLS_MODES = ['verify', 'pin', 'skip'] as const;
export type NodeTlsMode = (typeof NODE_TLS_MODES)[number];

/** A node as stored. `lastHeartbeat`, `createdAt`, `updatedAt` are Unix seconds. */
export interface NodeRecord {
  id: number;
  name: string;
  remark: string;
  scheme: 'http' | 'https';
  address: string;
  port: number;
  basePath: string;
  apiToken: string;
  enable: boolean;
  allowPrivateAddress: boolean;
  /** https only: verify the chain and name (default), pin `tlsPin` (base64 SHA-256 of the public key), or skip. */
  tlsMode: NodeTlsMode;
  tlsPin: string;
  status: NodeStatus;
  lastHeartbeat: number;
  latencyMs: number;
  coreVersion: string;
  panelVersion: string;
  cpuPct: number;
  memPct: number;
  uptimeSecs: number;
  lastError: string;
  createdAt: number;
  updatedAt: number;
}

/** The connection fields an operator writes. */
export type NodeWrite = Pick<
  NodeRecord,
  | 'name'
  | 'remark'
  | 'scheme'
  | 'address'
  | 'port'
  | 'basePath'
  | 'apiToken'
  | 'enable'
  | 'allowPrivateAddress'
  | 'tlsMode'
  | 'tlsPin'
>;

/** What a probe or heartbeat writes back. */
export type NodeHealth = Pick<
  NodeRecord,
  | 'status'
  | 'lastHeartbeat'
  | 'latencyMs'
  | 'coreVersion'
  | 'panelVersion'
  | 'cpuPct'
  | 'memPct'
  | 'uptimeSecs'
  | 'lastError'
>;

export interface NodeRollup {
  inboundCount: number;
  clientCount: number;
  onlineCount: number;
  depletedCount: number;
}

/**
 * The node as the API returns it. The stored apiToken is write-only: `apiToken` is always "" in responses and
 * `hasApiToken` says whether one is stored (what the reference panel does since it stopped echoing credentials).
 */
export type NodeView = Omit<NodeRecord, 'apiToken'> & NodeRollup & { apiToken: ''; hasApiToken: boolean };

/** spec: "A node probe result has: status, latencyMs, coreVersion, panelVersion, cpuPct, memPct, uptimeSecs, error." */
export interface ProbeResult {
  status: Exclude<NodeStatus, 'unknown'>;
  latencyMs: number;
  coreVersion: string;
  panelVersion: string;
  cpuPct: number;
  memPct: number;
  uptimeSecs: number;
  error: string;
  /** https: the base64 SHA-256 of the node's public key as presented (what to pin); '' for http or no handshake. */
  tlsPin: string;
}

export const NODE_METRICS = ['cpu', 'mem'] as const;
export type NodeMetric = (typeof NODE_METRICS)[number];

// ---- input ---------------------------------------------------------------------------------------------------------

const str = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

/** A host name or an IP literal (IPv6 with or without brackets); no scheme, port, path or spaces. */
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV6ISH = /^\[?[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?\]?$/;

export function normaliseAddress(raw: string): string | null {
  const s = raw.trim();
  if (IPV6ISH.test(s) && s.includes(':')) return s.replace(/^\[|\]$/g, '').toLowerCase();
  if (HOSTNAME.test(s)) return s.replace(/\.$/, '').toLowerCase();
  return null;
}

/** Base path normalised to begin and end with `/`; only URL path characters. */
export function normaliseBasePath(raw: string): string | null {
  let p = raw.trim();
  if (p === '') return '/';
  if (!/^[A-Za-z0-9/_.~%@!$&'()*+,;=:-]+$/.test(p) || p.includes('..')) return null;
  if (!p.startsWith('/')) p = `/${p}`;
  if (!p.endsWith('/')) p = `${p}/`;
  return p.replace(/\/{2,}/g, '/');
}

/** A bounded string normalised by `normalise`; null from it fails with `message`. */
const normalisedString = (normalise: (s: string) => string | null, message: string) =>
  z
    .string({ error: 'must be a string' })
    .max(255, 'must be at most 255 characters')
    .transform((s, ctx) => {
      const v = normalise(s);
      if (v === null) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return v;
    });

const address = normalisedString(normaliseAddress, 'must be a host name or an IP address (no scheme, port or path)');
const basePath = normalisedString(normaliseBasePath, 'must be a URL path such as / or /panel/');

const scheme = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.enum(NODE_SCHEMES, { error: 'must be http or https' }),
);

const tlsMode = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.enum(NODE_TLS_MODES, { error: 'must be verify, pin or skip' }),
);

/** A key pin: base64 of 32 bytes, with or without a `sha256/` prefix (how /test shows it). */
export const tlsPin = z
  .string({ error: 'must be a string' })
  .max(64, 'must be at most 64 characters')
  .transform((s) => s.trim().replace(/^sha256\//i, ''))
  .refine(
    (s) => s === '' || /^[A-Za-z0-9+/]{43}=$/.test(s),
    'must be the base64 SHA-256 of the public key (as /test shows it, sha256/...)',
  );

const token = z
  .string({ error: 'must be a string' })
  .max(512, 'must be at most 512 characters')
  .transform((s) => s.trim())
  .refine((s) => /^[\x21-\x7e]*$/.test(s), 'must be printable ASCII without spaces');

/**
 * Body of /add and /update/:id. On update an omitted or empty apiToken keeps the stored one (clearApiToken: true
 * removes it).
 */
export const nodeInput = z.object({
  name: str(128)
    .transform((s) => s.trim())
    .refine((s) => s.length > 0, 'is required'),
  remark: str(1024).optional(),
  scheme: scheme.optional(),
  address,
  port: intish(1, 65535),
  basePath: basePath.optional(),
  apiToken: token.optional(),
  clearApiToken: boolish.optional(),
  enable: boolish.optional(),
  allowPrivateAddress: boolish.optional(),
  tlsMode: tlsMode.optional(),
  tlsPin: tlsPin.optional(),
});
export type NodeInput = z.infer<typeof nodeInput>;

/** Body of /test: connection details only. */
export const nodeTestInput = z.object({
  scheme: scheme.optional(),
  address,
  port: intish(1, 65535),
  basePath: basePath.optional(),
  apiToken: token.optional(),
  allowPrivateAddress: boolish.optional(),
  tlsMode: tlsMode.optional(),
  tlsPin: tlsPin.optional(),
});
export type NodeTestInput = z.infer<typeof nodeTestInput>;

export const setEnableInput = z.object({ enable: boolish });

export const toView = (n: NodeRecord, r: NodeRollup): NodeView => {
  const { apiToken, ...rest } = n;
  return { ...rest, ...r, apiToken: '', hasApiToken: apiToken !== '' };
};

export const emptyRollup = (): NodeRollup => ({ inboundCount: 0, clientCount: 0, onlineCount: 0, depletedCount: 0 });

/** Health fields reset when the connection details change (old figures described another target). */
export const unknownHealth = (): NodeHealth => ({
  status: 'unknown',
  lastHeartbeat: 0,
  latencyMs: 0,
  coreVersion: '',
  panelVersion: '',
  cpuPct: 0,
  memPct: 0,
  uptimeSecs: 0,
  lastError: '',
});
