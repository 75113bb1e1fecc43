// The core config template (`coreSetting`): the built-in default, validation of an operator's template, and the
// API/stats/policy sections every running config must carry (core-notes.md: the classic API form both
// flavours accept). Pure.
import type { Json } from '../inbounds/model.js';
import { DomainError } from '../shared/errors.js';
import { assertJsonInput } from '../shared/json-input.js';

export const API_TAG = 'api';
export const API_SERVICES = ['HandlerService', 'LoggerService', 'StatsService'];

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The built-in default template (`getDefaultJsonConfig`): a sensible Xray config that V2Ray v4 also runs.
 * Private-address blocking (`geoip:private`) is left out on purpose: it needs geo data files that a bare
 * install does not have, and the operator may add it (see the README).
 */
export function defaultTemplate(apiPort: number): Json {
  return {
    log: { access: 'none', error: '', loglevel: 'warning' },
    api: { tag: API_TAG, services: [...API_SERVICES] },
    inbounds: [
      {
        tag: API_TAG,
        listen: '127.0.0.1',
        port: apiPort,
        protocol: 'dokodemo-door',
        settings: { address: '127.0.0.1' },
      },
    ],
    outbounds: [
      { tag: 'direct', protocol: 'freedom', settings: { domainStrategy: 'AsIs' } },
      { tag: 'blocked', protocol: 'blackhole', settings: {} },
    ],
    policy: {
      levels: { '0': { statsUserUplink: true, statsUserDownlink: true } },
      system: {
        statsInboundUplink: true,
        statsInboundDownlink: true,
        statsOutboundUplink: true,
        statsOutboundDownlink: true,
      },
    },
    routing: {
      domainStrategy: 'AsIs',
      rules: [
        { type: 'field', inboundTag: [API_TAG], outboundTag: API_TAG },
        { type: 'field', protocol: ['bittorrent'], outboundTag: 'blocked' },
      ],
    },
    stats: {},
  };
}

/**
 * Parses and checks an operator's `coreSetting` text. Throws DomainError naming what is wrong; returns the
 * object. The core's own test run (in the service) catches what this structural check cannot.
 */
export function parseTemplate(text: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new DomainError(`coreSetting: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!isObject(parsed)) throw new DomainError('coreSetting: must be a JSON object');
  assertJsonInput(parsed, 'coreSetting');
  for (const key of ['inbounds', 'outbounds'] as const) {
    const v = parsed[key];
    if (v === undefined) continue;
    if (!Array.isArray(v)) throw new DomainError(`coreSetting: ${key} must be an array`);
    v.forEach((item, i) => {
      if (!isObject(item)) throw new DomainError(`coreSetting: ${key}[${i}] must be an object`);
      if (key === 'inbounds' && item.tag !== API_TAG && item.protocol === undefined)
        throw new DomainError(`coreSetting: inbounds[${i}].protocol is required`);
      if (key === 'outbounds' && typeof item.protocol !== 'string')
        throw new DomainError(`coreSetting: outbounds[${i}].protocol is required`);
    });
  }
  for (const key of ['log', 'routing', 'policy', 'api', 'stats', 'dns'] as const) {
    if (parsed[key] !== undefined && parsed[key] !== null && !isObject(parsed[key]))
      throw new DomainError(`coreSetting: ${key} must be an object`);
  }
  const rules = isObject(parsed.routing) ? parsed.routing.rules : undefined;
  if (rules !== undefined && !Array.isArray(rules))
    throw new DomainError('coreSetting: routing.rules must be an array');
  const tags = new Set<string>();
  for (const ib of (parsed.inbounds as Json[] | undefined) ?? []) {
    if (typeof ib.tag === 'string' && ib.tag) {
      if (tags.has(ib.tag)) throw new DomainError(`coreSetting: duplicate inbound tag "${ib.tag}"`);
      tags.add(ib.tag);
    }
  }
  return parsed;
}

/**
 * Ensures the API section, the API inbound on 127.0.0.1:apiPort, the API routing rule (first), stats and the
 * stats policy. Mutates and returns `cfg`.
 */
export function ensureApi(cfg: Json, apiPort: number): Json {
  const api = isObject(cfg.api) ? cfg.api : {};
  const tag = typeof api.tag === 'string' && api.tag ? api.tag : API_TAG;
  const services = Array.isArray(api.services)
    ? (api.services as unknown[]).filter((s): s is string => typeof s === 'string')
    : [];
  for (const s of API_SERVICES) if (!services.includes(s)) services.push(s);
  const { listen: _ignored, ...rest } = api; // v2ray ignores api.listen; the classic inbound form is used instead
  cfg.api = { ...rest, tag, services };

  const inbounds = Array.isArray(cfg.inbounds) ? (cfg.inbounds as Json[]) : [];
  const apiInbound: Json = {
    tag,
    listen: '127.0.0.1',
    port: apiPort,
    protocol: 'dokodemo-door',
    settings: { address: '127.0.0.1' },
  };
  const idx = inbounds.findIndex((ib) => isObject(ib) && ib.tag === tag);
  if (idx >= 0) inbounds.splice(idx, 1);
  cfg.inbounds = [apiInbound, ...inbounds];

  const routing = isObject(cfg.routing) ? cfg.routing : {};
  const rules = (Array.isArray(routing.rules) ? (routing.rules as Json[]) : []).filter(
    (r) =>
      !(
        isObject(r) &&
        r.outboundTag === tag &&
        Array.isArray(r.inboundTag) &&
        r.inboundTag.length === 1 &&
        r.inboundTag[0] === tag
      ),
  );
  routing.rules = [{ type: 'field', inboundTag: [tag], outboundTag: tag }, ...rules];
  cfg.routing = routing;

  if (!isObject(cfg.stats)) cfg.stats = {};
  const policy = isObject(cfg.policy) ? cfg.policy : {};
  const levels = isObject(policy.levels) ? policy.levels : {};
  const level0 = isObject(levels['0']) ? levels['0'] : {};
  levels['0'] = { ...level0, statsUserUplink: true, statsUserDownlink: true };
  policy.levels = levels;
  const system = isObject(policy.system) ? policy.system : {};
  policy.system = {
    ...system,
    statsInboundUplink: true,
    statsInboundDownlink: true,
    statsOutboundUplink: true,
    statsOutboundDownlink: true,
  };
  cfg.policy = policy;
  return cfg;
}
