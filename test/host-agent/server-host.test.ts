// The server host on a temp data directory: zip reading, core install checks, geo file names, core log merge,
// backups folder, release asset names; and the panel log ring.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listZip, readZipEntry } from '../../host-agent/zip.js';
import { createServerHost, xrayAssetName } from '../../host-agent/server-host.js';
import { LogRing } from '../../adapters/node/log-ring.js';
import { makeZip } from '../support/zip.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'panel-host-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('zip', () => {
  it('reads stored and deflated entries and checks sizes and CRCs', () => {
    const big = 'z'.repeat(100_000);
    const zip = makeZip([
      { name: 'a.txt', data: 'stored' },
      { name: 'dir/b.bin', data: big, deflate: true },
    ]);
    expect(listZip(zip).map((e) => e.name)).toEqual(['a.txt', 'dir/b.bin']);
    expect(new TextDecoder().decode(readZipEntry(zip, 'a.txt', 100))).toBe('stored');
    expect(readZipEntry(zip, 'dir/b.bin', 200_000)).toHaveLength(100_000);
    expect(() => readZipEntry(zip, 'dir/b.bin', 1000)).toThrow(/larger than/);
    expect(() => readZipEntry(zip, 'missing', 1000)).toThrow(/not in the archive/);
    const broken = Uint8Array.from(zip);
    broken[30 + 5] ^= 0xff; // first byte of a.txt's data
    expect(() => readZipEntry(broken, 'a.txt', 100)).toThrow(/checksum/);
    expect(() => listZip(new TextEncoder().encode('not a zip at all, not a zip at all'))).toThrow(/not a zip/);
  });
});

describe('server host', () => {
  it('names the Xray release asset of a platform', () => {
    expect(xrayAssetName('linux', 'x64')).toBe('Xray-linux-64.zip');
    expect(xrayAssetName('linux', 'arm64')).toBe('Xray-linux-arm64-v8a.zip');
    expect(xrayAssetName('darwin', 'arm64')).toBe('Xray-macos-arm64-v8a.zip');
    expect(xrayAssetName('win32', 'x64')).toBe('Xray-windows-64.zip');
    expect(xrayAssetName('aix', 'x64')).toBeNull();
  });

  it('installs an Xray binary from a zip, and refuses one that is not Xray or missing', async () => {
    const host = createServerHost({ dataDir: dir });
    const ok = makeZip([
      { name: 'xray', data: '#!/bin/sh\necho "Xray 1.8.24 (Xray, Penetrates Everything.)"\n', deflate: true },
    ]);
    const path = await host.installCoreBinary(ok);
    expect(path).toBe(join(dir, 'bin', 'xray'));
    expect(statSync(path).mode & 0o777).toBe(0o700); // runnable by the panel's user only, like the whole data dir
    await expect(
      host.installCoreBinary(makeZip([{ name: 'xray', data: '#!/bin/sh\necho "V2Ray 4.34.0"\n' }])),
    ).rejects.toThrow(/not Xray/);
    await expect(host.installCoreBinary(makeZip([{ name: 'xray', data: '#!/bin/sh\nexit 3\n' }]))).rejects.toThrow(
      /does not run|not Xray/,
    );
    await expect(host.installCoreBinary(makeZip([{ name: 'readme', data: 'x' }]))).rejects.toThrow(
      /not in the archive/,
    );
    expect(readFileSync(path, 'utf8')).toContain('Xray 1.8.24'); // the good one stays
    expect(readdirSync(join(dir, 'bin'))).toEqual(['xray']);
  });

  it('writes geo files by plain name only', async () => {
    const host = createServerHost({ dataDir: dir });
    await host.writeGeoFile('geoip.dat', new Uint8Array([1, 2, 3]));
    expect(readFileSync(join(dir, 'bin', 'geoip.dat'))).toEqual(Buffer.from([1, 2, 3]));
    expect(statSync(join(dir, 'bin', 'geoip.dat')).mode & 0o777).toBe(0o600);
    for (const bad of ['../x.dat', '/etc/x.dat', 'x.txt', '.hidden.dat', 'a/b.dat']) {
      await expect(host.writeGeoFile(bad, new Uint8Array(1)), bad).rejects.toThrow(/refused/);
    }
  });

  it('merges the access and error logs by timestamp and keeps the tail', async () => {
    writeFileSync(join(dir, 'access.log'), '2026/01/01 00:00:01 a1\n2026/01/01 00:00:03 a3\n');
    writeFileSync(
      join(dir, 'error.log'),
      '2026/01/01 00:00:02 [Warning] e2\ncontinued line\n2026/01/01 00:00:04 [Error] e4\n',
    );
    const host = createServerHost({ dataDir: dir });
    expect(await host.coreLogLines(10)).toEqual([
      '2026/01/01 00:00:01 a1',
      '2026/01/01 00:00:02 [Warning] e2',
      'continued line',
      '2026/01/01 00:00:03 a3',
      '2026/01/01 00:00:04 [Error] e4',
    ]);
    expect(await host.coreLogLines(2)).toEqual(['2026/01/01 00:00:03 a3', '2026/01/01 00:00:04 [Error] e4']);
    expect(await createServerHost({ dataDir: join(dir, 'none') }).coreLogLines(5)).toEqual([]);
  });

  it('gives unique backup paths in backups/ and refuses odd names', async () => {
    const host = createServerHost({ dataDir: dir });
    const a = await host.backupPath('panel_x.db');
    expect(a).toBe(join(dir, 'backups', 'panel_x.db'));
    writeFileSync(a, 'x');
    expect(await host.backupPath('panel_x.db')).toBe(join(dir, 'backups', 'panel_x-1.db'));
    expect(statSync(join(dir, 'backups')).mode & 0o777).toBe(0o700);
    await expect(host.backupPath('../panel.db')).rejects.toThrow(/refused/);
    expect(existsSync(join(dir, 'panel.db'))).toBe(false);
  });
});

describe('log ring', () => {
  it('keeps the newest lines and filters by level', () => {
    const ring = new LogRing(3);
    for (const [lvl, msg] of [
      ['info', 1],
      ['error', 2],
      ['debug', 3],
      ['warn', 4],
      ['info', 5],
    ] as const) {
      ring.push(JSON.stringify({ time: 't', level: lvl, msg }));
    }
    expect(ring.tail(10, 'debug').map((l) => JSON.parse(l).msg)).toEqual([3, 4, 5]);
    expect(ring.tail(10, 'warn').map((l) => JSON.parse(l).msg)).toEqual([4]);
    expect(ring.tail(1, 'debug').map((l) => JSON.parse(l).msg)).toEqual([5]);
    const seen: string[] = [];
    ring.tee((l) => seen.push(l))('{"level":"error","msg":6}');
    expect(seen).toHaveLength(1);
    expect(ring.tail(1, 'error')).toEqual(['{"level":"error","msg":6}']);
  });
});
