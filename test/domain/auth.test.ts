import { describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import { ipInCidrs, normaliseIp, parseCidr, parseCidrList, parseIp, resolveClientIp } from '../../domain/auth/cidr.js';
import {
  LoginThrottle,
  THROTTLE_BLOCK_MS,
  THROTTLE_WINDOW_MS,
  USER_DELAY_MAX_MS,
  USER_FORGET_MS,
  USER_FREE_FAILURES,
} from '../../domain/auth/throttle.js';
import { hashPassword, verifyPassword } from '../../domain/auth/password.js';
import { SessionSigner } from '../../domain/auth/session.js';
import { ManualClock } from '../../domain/shared/clock.js';
import { base64, randomBytes } from '../../domain/shared/random.js';

describe('IP parsing', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
  ])('%s is %s', (input, canonical) => {
    expect(parseIp(input)).not.toBeNull();
    expect(normaliseIp(input)).toBe(canonical);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    'a.b.c.d',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    'gggg::1',
    '::1.2.3',
    'localhost',
    '1.2.3.4/8',
  ])('%s is not an address', (input) => expect(parseIp(input)).toBeNull());
});

describe('CIDR matching', () => {
  it.each([
    ['127.0.0.1/32', '127.0.0.1', true],
    ['127.0.0.1/32', '127.0.0.2', false],
    ['10.0.0.0/8', '10.255.1.1', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['192.168.1.128/25', '192.168.1.200', true],
    ['192.168.1.128/25', '192.168.1.127', false],
    ['0.0.0.0/0', '8.8.8.8', true],
    ['0.0.0.0/0', '2001:db8::1', false],
    ['::/0', '2001:db8::1', true],
    ['::1/128', '::1', true],
    ['::1/128', '::2', false],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/33', '2001:db8:8000::1', false],
    ['10.0.0.0/8', '::ffff:10.0.0.9', true],
    ['172.16.0.0/12', '172.31.255.255', true],
    ['172.16.0.0/12', '172.32.0.0', false],
    ['203.0.113.5', '203.0.113.5', true],
  ] as const)('%s contains %s: %s', (cidr, ip, expected) => {
    expect(ipInCidrs(ip, [parseCidr(cidr)!])).toBe(expected);
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0/-1', '10.0.0.0/8/1', 'x/8', '10.0.0.0/', '10.0.0.0/a'])(
    '%s is malformed',
    (c) => {
      expect(parseCidr(c)).toBeNull();
    },
  );

  it('parses lists and reports the bad entries', () => {
    const r = parseCidrList(' 127.0.0.1/32, ::1/128 ,, 10.0.0.0/99 ');
    expect(r.cidrs).toHaveLength(2);
    expect(r.bad).toEqual(['10.0.0.0/99']);
  });
});

describe('client address behind proxies', () => {
  const trusted = parseCidrList('127.0.0.1/32,::1/128,10.0.0.0/8').cidrs;
  it.each([
    [
      'an untrusted peer: headers ignored',
      '203.0.113.9',
      { forwardedFor: '1.1.1.1', realIp: '2.2.2.2' },
      '203.0.113.9',
    ],
    ['a trusted peer: X-Forwarded-For', '127.0.0.1', { forwardedFor: '198.51.100.4' }, '198.51.100.4'],
    [
      'a trusted peer: the rightmost untrusted hop wins (no spoofing)',
      '127.0.0.1',
      { forwardedFor: '6.6.6.6, 198.51.100.4, 10.0.0.2' },
      '198.51.100.4',
    ],
    ['a trusted peer, all hops trusted: the first', '127.0.0.1', { forwardedFor: '10.0.0.5, 10.0.0.2' }, '10.0.0.5'],
    ['a trusted peer: X-Real-IP without X-Forwarded-For', '::1', { realIp: '198.51.100.7' }, '198.51.100.7'],
    [
      'a trusted peer: garbage header falls back to the peer',
      '127.0.0.1',
      { forwardedFor: 'evil, 1.1.1.1' },
      '127.0.0.1',
    ],
    ['a trusted peer: no headers', '127.0.0.1', {}, '127.0.0.1'],
    ['an IPv4-mapped peer is matched as IPv4', '::ffff:127.0.0.1', { forwardedFor: '198.51.100.4' }, '198.51.100.4'],
    ['IPv6 client through a trusted proxy', '10.1.1.1', { forwardedFor: '2001:db8::42' }, '2001:db8::42'],
  ])('%s', (_name, peer, headers, expected) => {
    expect(resolveClientIp(peer, headers, trusted)).toBe(expected);
  });
});

describe('login throttle', () => {
  it('blocks one (ip, username) pair after 5 failures in 5 minutes, for 15 minutes', () => {
    const clock = new ManualClock();
    const t = new LoginThrottle(clock);
    for (let i = 0; i < 4; i++) t.recordFailure('1.1.1.1', 'admin');
    expect(t.isBlocked('1.1.1.1', 'admin')).toBe(false);
    t.recordFailure('1.1.1.1', 'admin');
    expect(t.isBlocked('1.1.1.1', 'admin')).toBe(true);
    expect(t.isBlocked('1.1.1.2', 'admin')).toBe(false);
    expect(t.isBlocked('1.1.1.1', 'root')).toBe(false);
    clock.advance(THROTTLE_BLOCK_MS - 1);
    expect(t.isBlocked('1.1.1.1', 'admin')).toBe(true);
    clock.advance(1);
    expect(t.isBlocked('1.1.1.1', 'admin')).toBe(false);
  });

  it('forgets failures older than the window and after a success', () => {
    const clock = new ManualClock();
    const t = new LoginThrottle(clock);
    for (let i = 0; i < 4; i++) t.recordFailure('ip', 'u');
    clock.advance(THROTTLE_WINDOW_MS);
    t.recordFailure('ip', 'u');
    expect(t.isBlocked('ip', 'u')).toBe(false);
    for (let i = 0; i < 3; i++) t.recordFailure('ip', 'u');
    t.recordSuccess('ip', 'u');
    t.recordFailure('ip', 'u');
    expect(t.isBlocked('ip', 'u')).toBe(false);
  });

  it('slows one username down exponentially after repeated failures from any addresses', () => {
    const clock = new ManualClock();
    const t = new LoginThrottle(clock);
    const fail = (i: number) => t.recordFailure(`198.18.${i >> 8}.${i & 255}`, 'admin');
    for (let i = 0; i < USER_FREE_FAILURES; i++) fail(i);
    expect(t.isBlocked('203.0.113.1', 'admin')).toBe(false); // every address got one try: no pair is blocked
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      fail(USER_FREE_FAILURES + i);
      let waited = 0;
      while (t.isBlocked('203.0.113.1', 'admin')) {
        clock.advance(1000);
        waited += 1000;
      }
      waits.push(waited);
    }
    expect(waits.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, 16000, 32000]);
    expect(Math.max(...waits)).toBe(USER_DELAY_MAX_MS);
    expect(t.isBlocked('203.0.113.1', 'root')).toBe(false); // other usernames are not slowed
    // A success resets the username; so does a day without failures.
    t.recordSuccess('203.0.113.1', 'admin');
    fail(1);
    expect(t.isBlocked('203.0.113.1', 'admin')).toBe(false);
    for (let i = 0; i < USER_FREE_FAILURES; i++) fail(i);
    expect(t.isBlocked('203.0.113.1', 'admin')).toBe(true);
    clock.advance(USER_FORGET_MS);
    fail(2);
    expect(t.isBlocked('203.0.113.1', 'admin')).toBe(false);
  });

  it('stays bounded under a flood of distinct pairs, keeping blocked pairs', () => {
    const clock = new ManualClock();
    const t = new LoginThrottle(clock, 100);
    for (let i = 0; i < 5; i++) t.recordFailure('victim', 'admin');
    for (let i = 0; i < 1000; i++) t.recordFailure(`10.0.${i >> 8}.${i & 255}`, 'admin');
    expect(t.size).toBeLessThanOrEqual(100);
    expect(t.isBlocked('victim', 'admin')).toBe(true);
  });
});

describe('password hashing', () => {
  it('uses salted PBKDF2-SHA256 with 600,000 iterations and verifies', async () => {
    const h1 = await hashPassword('secret pw');
    const h2 = await hashPassword('secret pw');
    expect(h1).toMatch(/^pbkdf2-sha256\$600000\$/);
    expect(h1).not.toBe(h2);
    expect(h1).not.toContain('secret');
    expect(await verifyPassword('secret pw', h1)).toBe(true);
    expect(await verifyPassword('secret pw ', h1)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });
});

describe('session tokens', () => {
  const secret = base64(randomBytes(32));

  it('issue, verify, expire by the clock, refuse other keys', async () => {
    const clock = new ManualClock();
    const s = new SessionSigner(secret, clock);
    const token = await s.issue(1, 3, 10);
    const claims = await s.verify(token);
    expect(claims).toMatchObject({ uid: 1, ver: 3 });
    expect(claims!.sid).toHaveLength(24);
    expect(await new SessionSigner(base64(randomBytes(32)), clock).verify(token)).toBeNull();
    expect(await s.verify(`${token}x`)).toBeNull();
    clock.advance(10 * 60_000 + 1000);
    expect(await s.verify(token)).toBeNull();
  });

  it('derives a CSRF token per session id', async () => {
    const s = new SessionSigner(secret, new ManualClock());
    expect(await s.csrfToken('a')).toBe(await s.csrfToken('a'));
    expect(await s.csrfToken('a')).not.toBe(await s.csrfToken('b'));
    expect(await s.csrfToken('a')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('TOTP as the tests generate it', () => {
  it('otplib generates 6 digits', async () => {
    const code = await generate({ secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', epoch: 1_700_000_000 });
    expect(code).toMatch(/^\d{6}$/);
  });
});
