// Pure rules of the server tools: release tags, versions, checksum files, geo allow-list, core log filtering.
import { describe, expect, it } from 'vitest';
import {
  compareTagsDesc,
  isGeoFileName,
  normaliseVersion,
  parseDigestSha256,
  parseReleaseTags,
} from '../../domain/server-tools/releases.js';
import { classify, filterCoreLog, outboundClasses } from '../../domain/server-tools/core-logs.js';

describe('releases', () => {
  it('keeps vX.Y.Z tags of non-draft releases, sorted by version', () => {
    expect(
      parseReleaseTags([
        { tag_name: 'v1.8.24' },
        { tag_name: 'v25.10.31' },
        { tag_name: 'v25.9.11' },
        { tag_name: 'v25.10.31' },
        { tag_name: 'v26.0.0', draft: true },
        { tag_name: 'v26.1.0-beta' },
        { tag_name: 7 },
        null,
        'x',
      ]),
    ).toEqual(['v25.10.31', 'v25.9.11', 'v1.8.24']);
    expect(() => parseReleaseTags({ message: 'rate limited' })).toThrow(/not an array/);
    expect(['v1.2.3', 'v1.10.0', 'v1.9.9'].sort(compareTagsDesc)).toEqual(['v1.10.0', 'v1.9.9', 'v1.2.3']);
  });

  it('normalises versions and refuses anything else', () => {
    expect(normaliseVersion('latest')).toBe('latest');
    expect(normaliseVersion('25.10.31')).toBe('v25.10.31');
    expect(normaliseVersion(' v1.8.24 ')).toBe('v1.8.24');
    for (const bad of ['', 'v1.2', '../v1.2.3', 'v1.2.3/../../x', 'LATEST', 'v1.2.3-rc1'])
      expect(normaliseVersion(bad), bad).toBeNull();
  });

  it('reads the SHA2-256 line of a .dgst file', () => {
    const h = 'A'.repeat(64);
    expect(parseDigestSha256(`MD5= 1\nSHA1= 2\nSHA2-256= ${h}\nSHA2-512= 3\n`)).toBe('a'.repeat(64));
    expect(() => parseDigestSha256('MD5= 1\n')).toThrow(/no SHA2-256/);
    expect(() => parseDigestSha256('SHA2-256= abc\n')).toThrow(/malformed/);
  });

  it('allows only listed geo file names', () => {
    for (const ok of ['geoip.dat', 'geosite.dat', 'geoip_IR.dat', 'geosite_RU.dat'])
      expect(isGeoFileName(ok)).toBe(true);
    for (const bad of ['../geoip.dat', 'geoip.DAT', 'toString', '__proto__', 'constructor', 'x.dat', ''])
      expect(isGeoFileName(bad), bad).toBe(false);
  });
});

describe('core log filter', () => {
  const classes = outboundClasses({
    outbounds: [
      { tag: 'out', protocol: 'freedom' },
      { tag: 'sink', protocol: 'blackhole' },
      { tag: 'warp', protocol: 'wireguard' },
    ],
  });
  const lines = [
    '2026/11/22 01:00:00 from 1.2.3.4:1 accepted tcp:a.com:443 [in -> out] email: a@x',
    '2026/11/22 01:00:01 from 1.2.3.4:2 accepted tcp:b.com:443 [in -> sink] email: b@x',
    '2026/11/22 01:00:02 from 1.2.3.4:3 accepted tcp:c.com:443 [in -> warp] email: a@x',
    '2026/11/22 01:00:03 127.0.0.1:4 accepted tcp:d.com:80 [out] email: c@x',
    '2026/11/22 01:00:04 from 127.0.0.1:5 accepted tcp:127.0.0.1:62789 [api -> api]',
    '   ',
  ];
  const all = { filter: '', showDirect: true, showBlocked: true, showProxy: true };

  it('takes freedom and blackhole tags from the template, with defaults', () => {
    expect(classes).toEqual({ direct: ['out'], blocked: ['sink'] });
    expect(outboundClasses(null)).toEqual({ direct: ['direct'], blocked: ['blocked'] });
    expect(classify(lines[3]!, classes)).toBe('direct'); // the V2Ray form `[out]`
  });

  it('filters by class, keyword (case-insensitive) and count, dropping API traffic and blanks', () => {
    expect(filterCoreLog(lines, 100, all, classes)).toHaveLength(4);
    expect(filterCoreLog(lines, 100, { ...all, showDirect: false }, classes).map((l) => l.slice(11, 19))).toEqual([
      '01:00:01',
      '01:00:02',
    ]);
    expect(filterCoreLog(lines, 100, { ...all, showProxy: false, showBlocked: false }, classes)).toHaveLength(2);
    expect(filterCoreLog(lines, 100, { ...all, filter: 'A@X' }, classes)).toHaveLength(2);
    expect(filterCoreLog(lines, 1, all, classes)[0]).toContain('d.com');
    expect(
      filterCoreLog(lines, 100, { filter: '', showDirect: false, showBlocked: false, showProxy: false }, classes),
    ).toEqual([]);
  });
});
