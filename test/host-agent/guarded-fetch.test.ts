// The guarded outbound HTTP client against local servers: private targets refused unless allowed, names that
// resolve to private addresses refused, size caps, deadlines, redirects re-checked at each hop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuardedFetch, isPublicAddress } from '../../host-agent/guarded-fetch.js';
import { HttpFetchError } from '../../domain/ports/http.js';

let server: Server;
let base = '';
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/big') {
      res.writeHead(200, { 'content-length': '5000' });
      res.end('x'.repeat(5000));
      return;
    }
    if (req.url === '/chunked-big') {
      res.writeHead(200);
      for (let i = 0; i < 10; i++) res.write('y'.repeat(1000));
      res.end();
      return;
    }
    if (req.url === '/slow') {
      setTimeout(() => {
        res.end('late');
      }, 2000);
      return;
    }
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/hello' });
      res.end();
      return;
    }
    if (req.url === '/whoami') {
      res.end(`auth=${req.headers.authorization ?? ''};cookie=${req.headers.cookie ?? ''}`);
      return;
    }
    if (req.url?.startsWith('/redirect-to?')) {
      res.writeHead(302, { location: decodeURIComponent(req.url.slice(13)) });
      res.end();
      return;
    }
    if (req.url === '/redirect-loop') {
      res.writeHead(302, { location: '/redirect-loop' });
      res.end();
      return;
    }
    if (req.url === '/echo' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => res.end(`${req.headers['content-type']}|${Buffer.concat(chunks).toString()}`));
      return;
    }
    res.writeHead(200, { 'x-test': 'yes' });
    res.end('hello');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const reason = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    expect(err).toBeInstanceOf(HttpFetchError);
    return (err as HttpFetchError).reason;
  }
};

describe('guarded fetch', () => {
  it('classifies addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['1.1.1.1', '140.82.112.3', '2606:4700::1111']) expect(isPublicAddress(ip), ip).toBe(true);
  });

  it('refuses loopback targets by default, and names that resolve to them', async () => {
    const http = createGuardedFetch({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const before = hits.length;
    expect(await reason(http.request({ url: `${base}/hello` }))).toBe('refused');
    expect(await reason(http.request({ url: `http://evil.example:${new URL(base).port}/hello` }))).toBe('refused');
    expect(hits.length).toBe(before);
  });

  it('refuses non-http schemes and credentials in URLs', async () => {
    const http = createGuardedFetch({ allowPrivate: true });
    expect(await reason(http.request({ url: 'file:///etc/passwd' }))).toBe('bad-url');
    expect(await reason(http.request({ url: `http://u:p@127.0.0.1:1/` }))).toBe('bad-url');
    expect(await reason(http.request({ url: 'not a url' }))).toBe('bad-url');
  });

  it('fetches when private targets are allowed (globally or per request)', async () => {
    const res = await createGuardedFetch({ allowPrivate: true }).request({ url: `${base}/hello` });
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(res.body)).toBe('hello');
    expect(res.headers['x-test']).toBe('yes');
    const per = await createGuardedFetch().request({ url: `${base}/hello`, allowPrivate: true });
    expect(per.status).toBe(200);
  });

  it('caps the body size, declared or streamed', async () => {
    const http = createGuardedFetch({ allowPrivate: true });
    expect(await reason(http.request({ url: `${base}/big`, maxBytes: 1000 }))).toBe('too-large');
    expect(await reason(http.request({ url: `${base}/chunked-big`, maxBytes: 5000 }))).toBe('too-large');
    expect((await http.request({ url: `${base}/big`, maxBytes: 5000 })).body.length).toBe(5000);
  });

  it('gives up at the deadline', async () => {
    const started = Date.now();
    expect(
      await reason(createGuardedFetch({ allowPrivate: true }).request({ url: `${base}/slow`, timeoutMs: 200 })),
    ).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('follows redirects with a limit, and re-checks each hop', async () => {
    const http = createGuardedFetch({ allowPrivate: true });
    const res = await http.request({ url: `${base}/redirect` });
    expect(new TextDecoder().decode(res.body)).toBe('hello');
    expect(res.url).toBe(`${base}/hello`);
    expect((await http.request({ url: `${base}/redirect-loop`, maxRedirects: 3 })).status).toBe(302);
  });

  it('sends credentials only to the origin they were meant for (stripped on a redirect to another origin)', async () => {
    const http = createGuardedFetch({ allowPrivate: true });
    const headers = { authorization: 'Bearer secret-token', cookie: 'session=1' };
    const same = await http.request({ url: `${base}/redirect-to?${encodeURIComponent('/whoami')}`, headers });
    expect(new TextDecoder().decode(same.body)).toBe('auth=Bearer secret-token;cookie=session=1');
    // localhost:PORT is another origin than 127.0.0.1:PORT for the same server.
    const other = `${base.replace('127.0.0.1', 'localhost')}/whoami`;
    const cross = await http.request({ url: `${base}/redirect-to?${encodeURIComponent(other)}`, headers });
    expect(new TextDecoder().decode(cross.body)).toBe('auth=;cookie=');
  });

  it('posts a body', async () => {
    const res = await createGuardedFetch({ allowPrivate: true }).request({
      url: `${base}/echo`,
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'ping',
    });
    expect(new TextDecoder().decode(res.body)).toBe('text/plain|ping');
  });
});
