// The access-log parser (both core flavours) and the file tail (appends, partial lines, truncation, rotation),
// plus the IP-limit log file.
import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessLogTail, FileIpLimitLog, parseAccessLine } from '../../host-agent/access-log.js';

const dir = mkdtempSync(join(tmpdir(), 'panel-access-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseAccessLine', () => {
  it.each([
    [
      '2026/11/22 01:48:47 127.0.0.1:43936 accepted tcp:127.0.0.1:18080 [direct] email: alice@x',
      { email: 'alice@x', ip: '127.0.0.1' },
    ],
    [
      '2026/11/22 01:48:47 tcp:203.0.113.9:5000 accepted udp:8.8.8.8:53 [direct] email: bob',
      { email: 'bob', ip: '203.0.113.9' },
    ],
    [
      '2026/11/22 01:48:47.123456 from 198.51.100.7:61234 accepted tcp:example.com:443 [in-443 -> direct] email: carol@x',
      { email: 'carol@x', ip: '198.51.100.7' },
    ],
    [
      '2026/11/22 01:48:47.5 from tcp:198.51.100.8:1 accepted tcp:example.com:443 [in >> out] email: d@x',
      { email: 'd@x', ip: '198.51.100.8' },
    ],
    [
      '2026/11/22 01:48:47 from [2001:db8::1]:443 accepted tcp:example.com:443 [in -> direct] email: v6@x',
      { email: 'v6@x', ip: '2001:db8::1' },
    ],
    [
      '2026/11/22 01:48:47 [2001:db8::2]:443 accepted tcp:example.com:443 [direct] email: v6b@x ',
      { email: 'v6b@x', ip: '2001:db8::2' },
    ],
  ])('%s', (line, want) => expect(parseAccessLine(line)).toEqual(want));

  it.each([
    '2026/11/22 01:48:47 127.0.0.1:43936 accepted tcp:127.0.0.1:18080 [direct]',
    '2026/11/22 01:48:47 127.0.0.1:43936 rejected  proxy/vmess/encoding: invalid user email: x',
    '2026/11/22 01:48:47 [Warning] something email: x',
    'garbage',
    '',
    '2026/11/22 01:48:47 not-an-ip:1 accepted tcp:1.1.1.1:80 [direct] email: e@x',
  ])('ignores %s', (line) => expect(parseAccessLine(line)).toBeNull());
});

const line = (ip: string, email: string) =>
  `2026/11/22 01:48:47 ${ip}:40000 accepted tcp:127.0.0.1:80 [direct] email: ${email}\n`;

describe('AccessLogTail', () => {
  it('skips what an existing file held at the first read, then reads appended lines, holding partial ones', async () => {
    const p = join(dir, 'a.log');
    writeFileSync(p, line('192.0.2.1', 'old@x'));
    const tail = new AccessLogTail(() => p);
    expect(await tail.read()).toEqual([]);
    appendFileSync(
      p,
      line('192.0.2.2', 'new@x') + '2026/11/22 01:48:47 192.0.2.3:1 accepted tcp:1.1.1.1:80 [direct] ema',
    );
    expect(await tail.read()).toEqual([{ email: 'new@x', ip: '192.0.2.2' }]);
    appendFileSync(p, 'il: half@x\n');
    expect(await tail.read()).toEqual([{ email: 'half@x', ip: '192.0.2.3' }]);
    expect(await tail.read()).toEqual([]);
  });

  it('reads a file that appears later from its start; follows truncation and replacement', async () => {
    const p = join(dir, 'b.log');
    const tail = new AccessLogTail(() => p);
    expect(await tail.read()).toEqual([]); // missing file
    writeFileSync(p, line('192.0.2.10', 'a@x'));
    expect(await tail.read()).toEqual([{ email: 'a@x', ip: '192.0.2.10' }]);
    writeFileSync(p, ''); // copytruncate
    appendFileSync(p, line('192.0.2.11', 'b@x'));
    expect(await tail.read()).toEqual([{ email: 'b@x', ip: '192.0.2.11' }]);
    renameSync(p, `${p}.1`);
    writeFileSync(p, line('192.0.2.12', 'c@x') + line('192.0.2.13', 'c@x'));
    expect(statSync(p).size).toBeGreaterThan(0);
    expect(await tail.read()).toEqual([
      { email: 'c@x', ip: '192.0.2.12' },
      { email: 'c@x', ip: '192.0.2.13' },
    ]);
  });

  it('reads nothing while no path is configured', async () => {
    const config: { path?: string } = {};
    const p = join(dir, 'c.log');
    writeFileSync(p, line('192.0.2.20', 'x@x'));
    const tail = new AccessLogTail(() => config.path);
    expect(await tail.read()).toEqual([]);
    config.path = p;
    appendFileSync(p, line('192.0.2.21', 'y@x'));
    expect(await tail.read()).toEqual([
      { email: 'x@x', ip: '192.0.2.20' },
      { email: 'y@x', ip: '192.0.2.21' },
    ]);
  });
});

describe('FileIpLimitLog', () => {
  it('appends one line per entry', async () => {
    const p = join(dir, 'ip-limit.log');
    const log = new FileIpLimitLog(p);
    await log.append(['one']);
    await log.append([]);
    await log.append(['two', 'three']);
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nthree\n');
  });
});
