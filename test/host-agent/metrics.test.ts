import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { readCpuTimes, readLoadAvg, readMemInfo, readNetDev, readTcpCount } from '../../host-agent/metrics/proc.js';
import { createProcHost, readDisk } from '../../host-agent/metrics/host.js';
import { fetchCoreVars } from '../../host-agent/metrics/core-vars.js';
import { createHistoryFile } from '../../host-agent/metrics/history-file.js';

const fixtures = (name: string) => new URL(`../fixtures/proc/${name}`, import.meta.url).pathname;
const FULL = fixtures('full');
const OLD = fixtures('old-kernel');
const MISSING = fixtures('does-not-exist');
const KB = 1024;

describe('/proc readers against fixtures', () => {
  it('reads the aggregate cpu line: total = user..steal, idle = idle + iowait', async () => {
    expect(await readCpuTimes(FULL)).toEqual({
      total: 10000 + 500 + 3000 + 80000 + 1500 + 0 + 200 + 300,
      idle: 80000 + 1500,
    });
    expect(await readCpuTimes(OLD)).toEqual({ total: 1000, idle: 800 });
  });

  it('reads memory as MemTotal - MemAvailable and swap as SwapTotal - SwapFree, in bytes', async () => {
    expect(await readMemInfo(FULL)).toEqual({
      mem: { current: 2_000_000 * KB, total: 8_000_000 * KB },
      swap: { current: 500_000 * KB, total: 2_000_000 * KB },
    });
  });

  it('falls back to MemFree + Buffers + Cached on kernels without MemAvailable', async () => {
    expect(await readMemInfo(OLD)).toEqual({
      mem: { current: 400 * KB, total: 1000 * KB },
      swap: { current: 0, total: 0 },
    });
  });

  it('sums received and sent bytes over every interface except lo', async () => {
    expect(await readNetDev(FULL)).toEqual({ recv: 1_000_000 + 5_000, sent: 200_000 + 3_000 });
  });

  it('counts TCP sockets from sockstat (v4 + v6), else from the /proc/net/tcp tables', async () => {
    expect(await readTcpCount(FULL)).toBe(11 + 4);
    expect(await readTcpCount(OLD)).toBe(3 + 1);
  });

  it('reads the load averages', async () => {
    expect(await readLoadAvg(FULL)).toEqual({ load1: 1.5, load5: 0.75, load15: 0.25 });
    expect(await readLoadAvg(OLD)).toBeNull();
  });

  it('never throws on a missing /proc: zeros and nulls', async () => {
    expect(await readCpuTimes(MISSING)).toBeNull();
    expect(await readMemInfo(MISSING)).toEqual({ mem: { current: 0, total: 0 }, swap: { current: 0, total: 0 } });
    expect(await readNetDev(MISSING)).toEqual({ sent: 0, recv: 0 });
    expect(await readTcpCount(MISSING)).toBe(0);
    expect(await readDisk('/does/not/exist')).toEqual({ current: 0, total: 0 });
  });

  it('reads uptime and UDP sockets, and zero where the files are missing', async () => {
    const r = await createProcHost({ procDir: MISSING, diskPath: tmpdir() }).read();
    expect(r.uptime).toBe(0);
    expect(r.udpCount).toBe(0);
  });

  it('assembles one reading from the fixture /proc (disk from statfs, load from the file)', async () => {
    const r = await createProcHost({ procDir: FULL, diskPath: tmpdir() }).read();
    expect(r.cpu).toEqual({ total: 95500, idle: 81500 });
    expect(r.mem.total).toBe(8_000_000 * KB);
    expect(r.net).toEqual({ recv: 1_005_000, sent: 203_000 });
    expect(r.tcpCount).toBe(15);
    expect(r.udpCount).toBe(5);
    expect(r.uptime).toBe(12345);
    expect(r.load).toEqual({ load1: 1.5, load5: 0.75, load15: 0.25 });
    expect(r.disk.total).toBeGreaterThan(0);
    expect(r.disk.current).toBeGreaterThan(0);
    expect(r.disk.current).toBeLessThanOrEqual(r.disk.total);
  });

  it('reads this machine quickly', async () => {
    const host = createProcHost();
    await host.read();
    const started = performance.now();
    const r = await host.read();
    expect(performance.now() - started).toBeLessThan(50);
    expect(r.cpu!.total).toBeGreaterThan(0);
    expect(r.mem.total).toBeGreaterThan(0);
  });
});

describe('core /debug/vars probe', () => {
  let server: Server | null = null;
  afterEach(async () => {
    if (server)
      await new Promise<void>((r) => {
        server!.closeAllConnections();
        server!.close(() => r());
      });
    server = null;
  });

  const listen = (handler: Parameters<typeof createServer>[1]) =>
    new Promise<string>((resolve) => {
      server = createServer(handler);
      server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server!.address() as AddressInfo).port}`));
    });

  it('reads and parses the JSON body', async () => {
    const addr = await listen((req, res) => {
      expect(req.url).toBe('/debug/vars');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ memstats: { Alloc: 123 } }));
    });
    expect(await fetchCoreVars(addr)).toEqual({ ok: true, vars: { memstats: { Alloc: 123 } } });
  });

  it('reports a refused connection, an HTTP error and malformed JSON as reasons', async () => {
    const addr = await listen((req, res) => {
      if (req.url === '/debug/vars') {
        res.statusCode = 404;
        res.end('no');
      }
    });
    const notFound = await fetchCoreVars(addr);
    expect(notFound).toEqual({ ok: false, reason: 'metrics endpoint answered HTTP 404' });
    const bad = await listen((_req, res) => res.end('{not json'));
    expect(await fetchCoreVars(bad)).toEqual({ ok: false, reason: 'metrics endpoint answered malformed JSON' });
    const port = Number(bad.split(':')[1]);
    await new Promise<void>((r) => {
      server!.closeAllConnections();
      server!.close(() => r());
    });
    server = null;
    const refused = await fetchCoreVars(`127.0.0.1:${port}`);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toMatch(/unreachable/);
  });

  it('gives up within the deadline on a core that accepts but never answers', async () => {
    const addr = await listen(() => {
      /* never answers */
    });
    const started = Date.now();
    const r = await fetchCoreVars(addr, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(r).toEqual({ ok: false, reason: 'metrics endpoint did not answer within 300 ms' });
  });

  it('refuses an oversized answer and a malformed address', async () => {
    const addr = await listen((_req, res) => res.end(JSON.stringify({ big: 'x'.repeat(5000) })));
    expect(await fetchCoreVars(addr, { maxBytes: 1000 })).toEqual({
      ok: false,
      reason: 'metrics answer larger than 1000 bytes',
    });
    expect((await fetchCoreVars('nonsense')).ok).toBe(false);
  });
});

describe('history file', () => {
  it('round-trips, writes atomically, and reads a missing or corrupt file as null', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'panel-hist-'));
    try {
      const f = createHistoryFile(dir);
      expect(await f.load()).toBeNull();
      await f.save({ version: 1, savedAt: 5, series: { 'host.cpu': { t: [100, 2], v: [1, 2] } } });
      expect(await f.load()).toEqual({ version: 1, savedAt: 5, series: { 'host.cpu': { t: [100, 2], v: [1, 2] } } });
      expect(JSON.parse(readFileSync(f.path, 'utf8')).savedAt).toBe(5);
      writeFileSync(f.path, '{torn');
      expect(await f.load()).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
