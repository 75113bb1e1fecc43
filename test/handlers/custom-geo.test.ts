// Custom geo API on libsql and PostgreSQL against a local file server: alias normalisation, url rules, download
// first (nothing saved on failure), files written to and removed from the geo folder, per-source update-all,
// aliases, a core restart after changes, and refusal of a loopback source when private targets are not allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { createGuardedFetch } from '../../host-agent/guarded-fetch.js';
import { createGeoFileStore } from '../../host-agent/geo-files.js';

const G = '/panel/api/custom-geo';
const dat = (seed: string) => Buffer.from(`${seed}:`.repeat(40)); // > 64 bytes, not HTML

let server: Server;
let base = '';
const files = new Map<string, { status: number; body: Buffer; type?: string }>();
const hits: string[] = [];

/** The served files, as each suite run starts (the suites change some of them). */
function resetFiles(): void {
  files.clear();
  files.set('/a.dat', { status: 200, body: dat('a1') });
  files.set('/b.dat', { status: 200, body: dat('b1') });
  files.set('/list.json', {
    status: 200,
    body: Buffer.from(JSON.stringify({ rules: Array.from({ length: 10 }, (_, i) => `d${i}.example`) })),
  });
  files.set('/small.dat', { status: 200, body: Buffer.from('tiny') });
  files.set('/page.dat', { status: 200, body: Buffer.from(`<!DOCTYPE html><html>${'x'.repeat(100)}</html>`) });
  files.set('/bad.json', { status: 200, body: Buffer.from(`{not json${' '.repeat(100)}`) });
  files.set('/big.dat', { status: 200, body: Buffer.alloc(10_000, 1) }); // no content-length: cut off while streaming
}

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/moved.dat') {
      res.writeHead(302, { location: '/a.dat' });
      res.end();
      return;
    }
    const f = files.get(req.url ?? '');
    if (!f) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    res.writeHead(f.status, { 'content-type': f.type ?? 'application/octet-stream' });
    // Streamed in two writes, so no content-length: size caps must hold while reading.
    res.write(f.body.subarray(0, 8));
    res.end(f.body.subarray(8));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe.each(testDatabases())('custom geo API on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let dir = '';
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const get = (path: string) => call(t, 'GET', path, undefined, s);
  const restarts = () => t.core.ops('restart').length;
  const list = async () => (await get(`${G}/list`)).json.obj;

  beforeAll(async () => {
    resetFiles();
    dir = mkdtempSync(join(tmpdir(), 'panel-geo-'));
    t = await createTestApp(db, {
      deps: {
        http: createGuardedFetch(),
        geoFiles: createGeoFileStore(join(dir, 'bin')),
        geoOptions: { allowPrivate: true, maxBytes: 4096, timeoutMs: 5000 },
      },
    });
    s = await login(t);
    t.core.current = { ...t.core.current, state: 'running' };
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists nothing and offers the built-in aliases', async () => {
    expect(await list()).toEqual([]);
    const a = (await get(`${G}/aliases`)).json.obj;
    expect(a.geoip.map((x: any) => x.fileName)).toEqual(['geoip.dat', 'geoip_IR.dat', 'geoip_RU.dat']);
    expect(a.geosite.map((x: any) => x.fileName)).toEqual(['geosite.dat', 'geosite_IR.dat', 'geosite_RU.dat']);
    expect(a.geoip[0]).toMatchObject({ builtin: true, usage: 'geoip:<tag>' });
    expect(a.geoip[1]).toMatchObject({ builtin: true, usage: 'ext:geoip_IR.dat:<tag>' });
  });

  it('refuses bad input and failed downloads without saving anything', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'geoasn', alias: 'x', url: `${base}/a.dat` }, /^type: must be one of: geoip, geosite/],
      [{ alias: 'x', url: `${base}/a.dat` }, /^type: /],
      [{ type: 'geoip', alias: '***', url: `${base}/a.dat` }, /^alias: must contain/],
      [{ type: 'geoip', alias: 'x'.repeat(65), url: `${base}/a.dat` }, /^alias: must be at most 64/],
      [{ type: 'geoip', alias: 'IR', url: `${base}/a.dat` }, /^alias: 'ir' is reserved/],
      [{ type: 'geosite', alias: 'geoip', url: `${base}/a.dat` }, /^alias: 'geoip' is reserved/],
      [{ type: 'geoip', alias: 'x', url: 'ftp://example.com/a.dat' }, /^url: must use http or https/],
      [{ type: 'geoip', alias: 'x', url: 'not a url' }, /^url: must be an absolute/],
      [{ type: 'geoip', alias: 'x', url: `${base}/a.txt` }, /^url: must point to a \.dat or \.json/],
      [{ type: 'geoip', alias: 'x', url: 'http://u:p@example.com/a.dat' }, /^url: must not contain credentials/],
      [{ type: 'geoip', alias: 'x', url: `${base}/missing.dat` }, /^download failed: HTTP 404/],
      [{ type: 'geoip', alias: 'x', url: `${base}/small.dat` }, /too small/],
      [{ type: 'geoip', alias: 'x', url: `${base}/page.dat` }, /HTML page/],
      [{ type: 'geoip', alias: 'x', url: `${base}/bad.json` }, /not valid JSON/],
      [{ type: 'geoip', alias: 'x', url: `${base}/big.dat` }, /larger than 4096 bytes/],
      [{ type: 'geoip', alias: 'x', url: 'http://127.0.0.1:1/a.dat' }, /^download failed: /],
    ];
    for (const [body, msg] of cases) {
      const r = await post(`${G}/add`, body);
      expect(r.json.success, JSON.stringify(body)).toBe(false);
      expect(r.json.msg).toMatch(msg);
    }
    expect(await list()).toEqual([]);
    expect(existsSync(join(dir, 'bin', 'geoip_x.dat'))).toBe(false);
    expect(restarts()).toBe(0);
  });

  let a = 0;
  let j = 0;

  it('adds sources: alias normalised, file written, core restarted', async () => {
    const r = await post(`${G}/add`, { type: 'GeoIP', alias: '  My List.v2 ', url: `${base}/a.dat` });
    expect(r.json.success).toBe(true);
    a = r.json.obj.id;
    expect(r.json.obj).toMatchObject({
      type: 'geoip',
      alias: 'my_list_v2',
      url: `${base}/a.dat`,
      status: 'ok',
      error: '',
      lastDownload: Math.floor(t.clock.now() / 1000),
      fileName: 'geoip_my_list_v2.dat',
      usage: 'ext:geoip_my_list_v2.dat:<tag>',
    });
    expect(readFileSync(join(dir, 'bin', 'geoip_my_list_v2.dat'))).toEqual(dat('a1'));
    expect(restarts()).toBe(1);
    const form = new URLSearchParams({ type: 'geosite', alias: 'Rules-1', url: `${base}/list.json` });
    const rj = await call(t, 'POST', `${G}/add`, form, s);
    expect(rj.json.success).toBe(true);
    j = rj.json.obj.id;
    expect(rj.json.obj.fileName).toBe('geosite_rules-1.json');
    expect(existsSync(join(dir, 'bin', 'geosite_rules-1.json'))).toBe(true);
    const dup = await post(`${G}/add`, { type: 'geoip', alias: 'MY LIST V2', url: `${base}/b.dat` });
    expect(dup.json.success).toBe(false);
    expect(dup.json.msg).toMatch(/already exists/);
    // Same alias under the other type is a different file.
    const other = await post(`${G}/add`, { type: 'geosite', alias: 'my_list_v2', url: `${base}/moved.dat` });
    expect(other.json.success).toBe(true); // a redirect is followed
    expect(readFileSync(join(dir, 'bin', 'geosite_my_list_v2.dat'))).toEqual(dat('a1'));
    expect((await list()).map((x: any) => x.fileName)).toEqual([
      'geoip_my_list_v2.dat',
      'geosite_rules-1.json',
      'geosite_my_list_v2.dat',
    ]);
    const aliases = (await get(`${G}/aliases`)).json.obj;
    expect(aliases.geoip.filter((x: any) => !x.builtin)).toEqual([
      {
        alias: 'my_list_v2',
        type: 'geoip',
        fileName: 'geoip_my_list_v2.dat',
        builtin: false,
        usage: 'ext:geoip_my_list_v2.dat:<tag>',
      },
    ]);
    expect(aliases.geosite.filter((x: any) => !x.builtin).map((x: any) => x.alias)).toEqual(['rules-1', 'my_list_v2']);
  });

  it('re-downloads one source; a failure keeps the old file and records the error', async () => {
    files.set('/a.dat', { status: 200, body: dat('a2') });
    t.clock.advance(60_000);
    const r = await post(`${G}/download/${a}`);
    expect(r.json.success).toBe(true);
    expect(r.json.obj.lastDownload).toBe(Math.floor(t.clock.now() / 1000));
    expect(readFileSync(join(dir, 'bin', 'geoip_my_list_v2.dat'))).toEqual(dat('a2'));
    files.set('/a.dat', { status: 500, body: Buffer.from('oops') });
    const bad = await post(`${G}/download/${a}`);
    expect(bad.json.success).toBe(false);
    expect(bad.json.msg).toMatch(/HTTP 500/);
    expect(readFileSync(join(dir, 'bin', 'geoip_my_list_v2.dat'))).toEqual(dat('a2'));
    const row = (await list()).find((x: any) => x.id === a);
    expect(row).toMatchObject({ status: 'error', error: expect.stringMatching(/HTTP 500/) });
    expect((await post(`${G}/download/999`)).json.msg).toMatch(/not found/);
  });

  it('update-all reports errors per source and never fails as a whole', async () => {
    const before = restarts();
    const r = await post(`${G}/update-all`);
    expect(r.json.success).toBe(true);
    expect(r.json.obj.succeeded.map((x: any) => x.fileName).sort()).toEqual(['geosite_rules-1.json']);
    expect(r.json.obj.failed).toEqual([
      { id: a, alias: 'my_list_v2', fileName: 'geoip_my_list_v2.dat', error: expect.stringMatching(/HTTP 500/) },
      expect.objectContaining({ alias: 'my_list_v2', fileName: 'geosite_my_list_v2.dat' }),
    ]);
    expect(r.json.msg).toBe('1 updated, 2 failed');
    expect(restarts()).toBe(before + 1);
    files.set('/a.dat', { status: 200, body: dat('a3') });
    const ok = await post(`${G}/update-all`);
    expect(ok.json.obj.failed).toEqual([]);
    expect((await list()).every((x: any) => x.status === 'ok')).toBe(true);
  });

  it('updates a source: new file downloaded, old file removed; bad input changes nothing', async () => {
    const before = JSON.stringify(await list());
    expect(
      (await post(`${G}/update/${a}`, { type: 'geoip', alias: 'rules-1', url: `${base}/x.txt` })).json.msg,
    ).toMatch(/^url: /);
    expect(
      (await post(`${G}/update/${a}`, { type: 'geoip', alias: 'new', url: `${base}/missing.dat` })).json.msg,
    ).toMatch(/HTTP 404/);
    expect(
      (await post(`${G}/update/${j}`, { type: 'geoip', alias: 'my_list_v2', url: `${base}/b.dat` })).json.msg,
    ).toMatch(/already exists/);
    expect((await post(`${G}/update/999`, { type: 'geoip', alias: 'zz', url: `${base}/b.dat` })).json.msg).toMatch(
      /not found/,
    );
    expect((await post(`${G}/update/abc`, { type: 'geoip', alias: 'zz', url: `${base}/b.dat` })).json.msg).toMatch(
      /^id: /,
    );
    expect(JSON.stringify(await list())).toBe(before);
    const r = await post(`${G}/update/${a}`, { type: 'geoip', alias: 'Renamed', url: `${base}/b.dat` });
    expect(r.json.success).toBe(true);
    expect(r.json.obj).toMatchObject({ id: a, alias: 'renamed', fileName: 'geoip_renamed.dat', status: 'ok' });
    expect(readFileSync(join(dir, 'bin', 'geoip_renamed.dat'))).toEqual(dat('b1'));
    expect(existsSync(join(dir, 'bin', 'geoip_my_list_v2.dat'))).toBe(false);
  });

  it('deletes a source and its cached file', async () => {
    const before = restarts();
    const r = await post(`${G}/delete/${a}`);
    expect(r.json).toMatchObject({ success: true, obj: { fileName: 'geoip_renamed.dat', fileRemoved: true } });
    expect(existsSync(join(dir, 'bin', 'geoip_renamed.dat'))).toBe(false);
    expect((await list()).some((x: any) => x.id === a)).toBe(false);
    expect(restarts()).toBe(before + 1);
    expect((await post(`${G}/delete/${a}`)).json.msg).toMatch(/not found/);
  });

  it('refuses a loopback source when private targets are not allowed', async () => {
    const strict = await createTestApp(db, {
      deps: { http: createGuardedFetch(), geoFiles: createGeoFileStore(join(dir, 'strict')) },
    });
    try {
      const ss = await login(strict);
      hits.length = 0;
      const r = await call(strict, 'POST', `${G}/add`, { type: 'geoip', alias: 'x', url: `${base}/b.dat` }, ss);
      expect(r.json.success).toBe(false);
      expect(r.json.msg).toMatch(/^download failed: refused 127\.0\.0\.1/);
      expect(hits).toEqual([]);
      expect((await call(strict, 'GET', `${G}/list`, undefined, ss)).json.obj).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
