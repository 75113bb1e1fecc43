// Pure rules of the nodes and custom geo areas: address/base-path normalisation, probe URLs, status parsing and
// classification (with a scripted HTTP port), the input schemas, and the geo alias/url/content checks.
import { describe, expect, it } from 'vitest';
import { HttpFetchError, type HttpClient, type HttpRequest, type HttpResponse } from '../../domain/ports/http.js';
import { nodeInput, normaliseAddress, normaliseBasePath, toView } from '../../domain/nodes/model.js';
import { nodeUrl, parseStatus, probeNode, readEnvelope, RemoteError, type Target } from '../../domain/nodes/remote.js';
import { clientPayload } from '../../domain/nodes/pusher.js';
import {
  aliasProblem,
  contentProblem,
  fileNameOf,
  geoInput,
  normaliseAlias,
  urlProblem,
} from '../../domain/geo/model.js';

const enc = (s: string) => new TextEncoder().encode(s);
const res = (status: number, body: unknown): HttpResponse => ({
  status,
  headers: {},
  url: 'http://x/',
  body: enc(typeof body === 'string' ? body : JSON.stringify(body)),
});

/** An HTTP port that answers from a script and records requests. */
function scripted(answer: (req: HttpRequest) => HttpResponse | Error): HttpClient & { seen: HttpRequest[] } {
  const seen: HttpRequest[] = [];
  return {
    seen,
    async request(req) {
      seen.push(req);
      const a = answer(req);
      if (a instanceof Error) throw a;
      return a;
    },
  };
}

const target: Target = {
  scheme: 'https',
  address: 'node.example',
  port: 2053,
  basePath: '/panel/',
  apiToken: 'sekret-token',
  allowPrivateAddress: false,
  tlsMode: 'verify',
  tlsPin: '',
};

describe('node addresses and base paths', () => {
  it.each([
    ['example.com', 'example.com'],
    [' Example.COM. ', 'example.com'],
    ['10.0.0.1', '10.0.0.1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['a-b.c-d.e', 'a-b.c-d.e'],
    ['http://example.com', null],
    ['example.com:80', null],
    ['exa mple.com', null],
    ['-bad.com', null],
    ['ex/ample', null],
    ['', null],
  ])('address %j → %j', (raw, want) => expect(normaliseAddress(raw)).toBe(want));

  it.each([
    ['', '/'],
    ['/', '/'],
    ['panel', '/panel/'],
    ['/panel', '/panel/'],
    ['//a//b//', '/a/b/'],
    ['/x-y_z.1/', '/x-y_z.1/'],
    ['/a b/', null],
    ['/../', null],
    ['/a?b', null],
    ['/a#b', null],
  ])('basePath %j → %j', (raw, want) => expect(normaliseBasePath(raw)).toBe(want));

  it('builds probe URLs with IPv6 brackets and the base path', () => {
    expect(nodeUrl(target, 'panel/api/server/status')).toBe('https://node.example:2053/panel/panel/api/server/status');
    expect(nodeUrl({ ...target, scheme: 'http', address: '2001:db8::1', basePath: '/' }, '/x')).toBe(
      'http://[2001:db8::1]:2053/x',
    );
  });

  it('parses add input: defaults, trimming, numeric strings and form booleans', () => {
    const r = nodeInput.parse({ name: ' a ', address: 'H.example', port: '443', enable: 'false', apiToken: ' tok ' });
    expect(r).toMatchObject({ name: 'a', address: 'h.example', port: 443, enable: false, apiToken: 'tok' });
    expect(nodeInput.safeParse({ name: 'a', address: 'h', port: 1.5 }).success).toBe(false);
    expect(nodeInput.safeParse({ name: 'a\u0000', address: 'h', port: 1 }).success).toBe(false);
  });

  it('never exposes the stored token in a view', () => {
    const v = toView(
      {
        id: 1,
        name: 'n',
        remark: '',
        scheme: 'https',
        address: 'h',
        port: 1,
        basePath: '/',
        apiToken: 'secret',
        enable: true,
        allowPrivateAddress: false,
        tlsMode: 'verify',
        tlsPin: '',
        status: 'unknown',
        lastHeartbeat: 0,
        latencyMs: 0,
        coreVersion: '',
        panelVersion: '',
        cpuPct: 0,
        memPct: 0,
        uptimeSecs: 0,
        lastError: '',
        createdAt: 0,
        updatedAt: 0,
      },
      { inboundCount: 0, clientCount: 0, onlineCount: 0, depletedCount: 0 },
    );
    expect(JSON.stringify(v)).not.toContain('secret');
    expect(v).toMatchObject({ apiToken: '', hasApiToken: true });
  });
});

describe('status parsing', () => {
  it('reads our snapshot and the reference shape, clamping percentages', () => {
    expect(
      parseStatus({ cpu: 12.345, mem: { current: 1, total: 3 }, core: { version: '1.8.0' }, panelVersion: 'v1.2.3' }),
    ).toEqual({ cpuPct: 12.35, memPct: 33.33, coreVersion: '1.8.0', panelVersion: 'v1.2.3', uptimeSecs: 0 });
    expect(
      parseStatus({ cpu: '150', mem: { current: 5, total: 0 }, xray: { version: '25.1.1' }, uptime: 99.7 }),
    ).toEqual({ cpuPct: 100, memPct: 0, coreVersion: '25.1.1', panelVersion: '', uptimeSecs: 99 });
    expect(parseStatus({ cpu: -3, mem: 'x', core: null })).toMatchObject({ cpuPct: 0, memPct: 0, coreVersion: '' });
    expect(() => parseStatus(null)).toThrow(RemoteError);
  });

  it.each([
    [res(200, { success: true, obj: 1 }), null],
    [res(401, ''), /401.*apiToken was rejected/],
    [res(404, ''), /404.*basePath/],
    [res(502, 'bad gateway'), /HTTP 502/],
    [res(200, '<html>'), /did not answer with JSON/],
    [res(200, { ok: true }), /not a panel envelope/],
    [res(200, { success: false, msg: 'nope' }), /refused: nope/],
  ])('envelope %#', (r, err) => {
    if (err === null) expect(readEnvelope(r)).toBe(1);
    else expect(() => readEnvelope(r)).toThrow(err);
  });
});

describe('probeNode', () => {
  const ok = {
    success: true,
    obj: { cpu: 5, mem: { current: 1, total: 4 }, core: { version: '1.0' }, panelVersion: 'v9' },
  };

  it('sends one GET with the Bearer token, no redirects, a deadline, a size cap and the private flag', async () => {
    const http = scripted(() => res(200, ok));
    const r = await probeNode(http, { ...target, allowPrivateAddress: true });
    expect(r).toMatchObject({
      status: 'online',
      cpuPct: 5,
      memPct: 25,
      coreVersion: '1.0',
      panelVersion: 'v9',
      error: '',
    });
    expect(r.latencyMs).toBeGreaterThanOrEqual(1);
    expect(http.seen).toHaveLength(1);
    expect(http.seen[0]).toMatchObject({
      url: 'https://node.example:2053/panel/panel/api/server/status',
      method: 'GET',
      maxRedirects: 0,
      allowPrivate: true,
      headers: expect.objectContaining({ authorization: 'Bearer sekret-token' }),
    });
    expect(http.seen[0]!.timeoutMs).toBeGreaterThan(0);
    expect(http.seen[0]!.maxBytes).toBeGreaterThan(0);
  });

  it.each([
    [new HttpFetchError('refused node.example: 10.0.0.1 is a private address', 'refused'), 'offline'],
    [new HttpFetchError('request to node.example timed out', 'timeout'), 'offline'],
    [new HttpFetchError('request failed: ECONNREFUSED', 'network'), 'offline'],
    [new HttpFetchError('response is larger than 262144 bytes', 'too-large'), 'error'],
    [res(401, ''), 'error'],
    [res(200, 'not json'), 'error'],
    [res(200, { success: false, msg: 'x' }), 'error'],
  ])('classifies failure %# without leaking the token', async (answer, status) => {
    const r = await probeNode(
      scripted(() => answer),
      target,
    );
    expect(r.status).toBe(status);
    expect(r.error).not.toBe('');
    expect(r.error).not.toContain('sekret-token');
    expect(r).toMatchObject({ cpuPct: 0, memPct: 0, coreVersion: '' });
  });
});

describe('node pusher payload', () => {
  it('carries the identity and limits, as the client API names them', () => {
    const p = clientPayload({
      id: 7,
      email: 'e',
      subId: 's',
      uuid: 'u',
      password: 'p',
      auth: 'a',
      flow: '',
      security: 'auto',
      method: '',
      totalGB: 1,
      expiryTime: 2,
      enable: false,
      limitIp: 3,
      tgId: 4,
      comment: 'c',
      group: 'g',
      reverse: null,
      reset: 5,
      createdAt: 0,
      updatedAt: 0,
    });
    expect(p).toEqual({
      email: 'e',
      subId: 's',
      id: 'u',
      password: 'p',
      auth: 'a',
      flow: '',
      security: 'auto',
      totalGB: 1,
      expiryTime: 2,
      enable: false,
      limitIp: 3,
      tgId: 4,
      comment: 'c',
      group: 'g',
      reverse: null,
      reset: 5,
    });
  });
});

describe('custom geo rules', () => {
  it.each([
    ['MyList', 'mylist'],
    [' my list ', 'my_list'],
    ['a.b/c', 'a_b_c'],
    ['--x--', 'x'],
    ['Ünï', 'n'],
    ['a__b', 'a__b'],
    ['***', ''],
  ])('alias %j → %j', (raw, want) => expect(normaliseAlias(raw)).toBe(want));

  it('reserves the built-in names', () => {
    expect(aliasProblem('geoip', 'ir')).toMatch(/reserved by the built-in file geoip_IR\.dat/);
    expect(aliasProblem('geosite', 'ru')).toMatch(/geosite_RU\.dat/);
    expect(aliasProblem('geosite', 'geoip')).toMatch(/reserved/);
    expect(aliasProblem('geoip', 'cn')).toBeNull();
    expect(aliasProblem('geoip', '')).toMatch(/at least one/);
  });

  it.each([
    ['https://example.com/x.dat', null],
    ['http://example.com/a/B.JSON', null],
    ['https://example.com/x.dat?v=1', null],
    ['https://example.com/x.dat.gz', /\.dat or \.json/],
    ['https://example.com/', /\.dat or \.json/],
    ['file:///x.dat', /http or https/],
    ['https://u:p@example.com/x.dat', /credentials/],
    ['x.dat', /absolute/],
  ])('url %j', (url, problem) => {
    if (problem === null) expect(urlProblem(url)).toBeNull();
    else expect(urlProblem(url)).toMatch(problem);
  });

  it('names files by type, alias and extension', () => {
    expect(fileNameOf({ type: 'geoip', alias: 'a', url: 'https://h/x.DAT' })).toBe('geoip_a.dat');
    expect(fileNameOf({ type: 'geosite', alias: 'b', url: 'https://h/x.json?y=1' })).toBe('geosite_b.json');
  });

  it('checks downloaded content', () => {
    expect(contentProblem(enc('x'.repeat(100)), 'dat')).toBeNull();
    expect(contentProblem(enc('x'), 'dat')).toMatch(/too small/);
    expect(contentProblem(enc(`  <!DOCTYPE HTML>${'x'.repeat(80)}`), 'dat')).toMatch(/HTML/);
    expect(contentProblem(enc(JSON.stringify({ a: 'x'.repeat(80) })), 'json')).toBeNull();
    expect(contentProblem(enc(`{${'x'.repeat(80)}`), 'json')).toMatch(/not valid JSON/);
  });

  it('parses input: type case-insensitive, alias normalised, url trimmed', () => {
    expect(geoInput.parse({ type: ' GeoSite ', alias: 'A B', url: ' https://h/x.dat ' })).toEqual({
      type: 'geosite',
      alias: 'a_b',
      url: 'https://h/x.dat',
    });
    expect(geoInput.safeParse({ type: 'geoip', alias: 'a', url: 'https://h/x' }).success).toBe(false);
  });
});
