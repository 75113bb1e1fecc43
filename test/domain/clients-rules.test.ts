import { describe, expect, it } from 'vitest';
import {
  applyProtocolRules,
  deletableWhenDepleted,
  groupNameProblem,
  identifierProblem,
  inBucket,
  isDepleted,
  ss2022KeyBytes,
  summaryBucket,
  validSs2022Key,
  type StatusInput,
} from '../../domain/clients/rules.js';
import type { BucketParams } from '../../domain/clients/model.js';
import { fromBase64 } from '../../domain/shared/random.js';

describe('identifiers', () => {
  it.each([
    ['alice@example.com', null],
    ['user_1.2-3+tag', null],
    ['ユーザー', null],
    ['', 'email: must not be empty'],
    ['a b', 'whitespace'],
    ['a\u00a0b', 'whitespace'],
    ['a/b', 'slashes'],
    ['a\\b', 'slashes'],
    ['../etc/passwd', 'slashes'],
    ['a\u0000', 'control'],
    ['a\u001f', 'control'],
    ['a\u007f', 'control'],
    ['.', 'must not be'],
    ['..', 'must not be'],
    ['x'.repeat(256), 'at most 255'],
  ])('email %j', (value, problem) => {
    const p = identifierProblem('email', value, true);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toContain(problem);
  });

  it('subId may be empty', () => {
    expect(identifierProblem('subId', '', false)).toBeNull();
    expect(identifierProblem('subId', 'a/b', false)).toContain('subId');
  });

  it.each([
    ['Team A', null],
    ['', 'must not be empty'],
    ['a/b', 'slashes'],
    [' x', 'spaces'],
    ['y'.repeat(65), 'at most 64'],
    ['..', 'must not be'],
  ])('group %j', (value, problem) => {
    const p = groupNameProblem('name', value);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toContain(problem);
  });
});

describe('Shadowsocks-2022 keys', () => {
  it.each([
    ['2022-blake3-aes-128-gcm', 16],
    ['2022-blake3-aes-256-gcm', 32],
    ['2022-blake3-chacha20-poly1305', 32],
    ['aes-256-gcm', 0],
    ['chacha20-ietf-poly1305', 0],
    ['', 0],
  ])('%s needs %i bytes', (method, n) => expect(ss2022KeyBytes(method)).toBe(n));

  it('validates the decoded length and the base64 form', () => {
    const k16 = Buffer.alloc(16, 3).toString('base64');
    const k32 = Buffer.alloc(32, 3).toString('base64');
    expect(validSs2022Key('2022-blake3-aes-128-gcm', k16)).toBe(true);
    expect(validSs2022Key('2022-blake3-aes-128-gcm', k32)).toBe(false);
    expect(validSs2022Key('2022-blake3-aes-256-gcm', k32)).toBe(true);
    expect(validSs2022Key('2022-blake3-aes-256-gcm', 'not base64!')).toBe(false);
    expect(validSs2022Key('2022-blake3-aes-256-gcm', '')).toBe(false);
    expect(validSs2022Key('aes-256-gcm', 'anything')).toBe(true);
  });
});

describe('applyProtocolRules', () => {
  const empty = {
    uuid: '',
    password: '',
    auth: '',
    flow: '',
    method: '',
    reverse: null as { tag: string } | null,
    security: '',
  };
  const vlessReality = {
    protocol: 'vless' as const,
    settings: {},
    streamSettings: { network: 'tcp', security: 'reality' },
  };
  const vlessWs = { protocol: 'vless' as const, settings: {}, streamSettings: { network: 'ws', security: 'tls' } };
  const trojanTls = { protocol: 'trojan' as const, settings: {}, streamSettings: { security: 'tls' } };
  const ss = (method: string) => ({ protocol: 'shadowsocks' as const, settings: { method }, streamSettings: {} });

  it('fills secrets per protocol', () => {
    const r = applyProtocolRules(empty, [
      vlessWs,
      trojanTls,
      { protocol: 'hysteria', settings: {}, streamSettings: {} },
      { protocol: 'vmess', settings: {}, streamSettings: {} },
    ]);
    expect(r.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.password).not.toBe('');
    expect(r.auth).not.toBe('');
    expect(r.security).toBe('auto');
  });

  it('keeps given secrets', () => {
    const r = applyProtocolRules({ ...empty, uuid: 'u', password: 'p', auth: 'a' }, [
      vlessWs,
      trojanTls,
      { protocol: 'hysteria2', settings: {}, streamSettings: {} },
    ]);
    expect(r).toMatchObject({ uuid: 'u', password: 'p', auth: 'a' });
  });

  it('SS-2022: replaces an invalid key with one of the right length, clears method', () => {
    const r = applyProtocolRules({ ...empty, password: 'short', method: 'x' }, [ss('2022-blake3-aes-256-gcm')]);
    expect(fromBase64(r.password)).toHaveLength(32);
    expect(r.method).toBe('');
  });

  it('legacy SS: copies the inbound method', () => {
    expect(applyProtocolRules(empty, [ss('chacha20-ietf-poly1305')]).method).toBe('chacha20-ietf-poly1305');
  });

  it.each([
    [[vlessReality], 'xtls-rprx-vision'],
    [[trojanTls], 'xtls-rprx-vision'],
    [[vlessWs], ''],
    [[{ protocol: 'vless' as const, settings: {}, streamSettings: { network: 'tcp', security: 'none' } }], ''],
    [[{ protocol: 'vmess' as const, settings: {}, streamSettings: { network: 'tcp', security: 'tls' } }], ''],
    [[vlessWs, vlessReality], 'xtls-rprx-vision'],
  ])('flow on %j', (inbounds, flow) => {
    expect(applyProtocolRules({ ...empty, flow: 'xtls-rprx-vision' }, inbounds).flow).toBe(flow);
  });

  it('reverse only with a VLESS inbound', () => {
    expect(applyProtocolRules({ ...empty, reverse: { tag: 't' } }, [vlessWs]).reverse).toEqual({ tag: 't' });
    expect(applyProtocolRules({ ...empty, reverse: { tag: 't' } }, [trojanTls]).reverse).toBeNull();
  });
});

describe('status buckets', () => {
  const NOW = Date.UTC(2026, 0, 1);
  const p: BucketParams = { now: NOW, onlineSince: NOW / 1000 - 20, expireDiffMs: 0, trafficDiffBytes: 0 };
  const base: StatusInput = {
    enable: true,
    totalGB: 0,
    expiryTime: 0,
    up: 0,
    down: 0,
    trafficEnable: true,
    lastOnline: 0,
  };
  const c = (o: Partial<StatusInput>): StatusInput => ({ ...base, ...o });

  it.each<[string, Partial<StatusInput>, BucketParams, ReturnType<typeof summaryBucket>]>([
    ['unlimited', {}, p, 'active'],
    ['quota exactly used', { totalGB: 100, up: 60, down: 40 }, p, 'depleted'],
    ['one byte left', { totalGB: 100, up: 60, down: 39 }, p, 'active'],
    ['expiry exactly now', { expiryTime: NOW }, p, 'depleted'],
    ['expiry 1 ms ahead', { expiryTime: NOW + 1 }, p, 'active'],
    ['negative expiry (delayed start)', { expiryTime: -86_400_000 }, p, 'active'],
    ['operator-disabled', { enable: false }, p, 'deactive'],
    ['auto-disabled', { enable: false, trafficEnable: false }, p, 'depleted'],
    ['disabled and exhausted', { enable: false, totalGB: 1, up: 1 }, p, 'depleted'],
    ['expiring by days', { expiryTime: NOW + 1000 }, { ...p, expireDiffMs: 86_400_000 }, 'expiring'],
    ['exactly expireDiff away', { expiryTime: NOW + 86_400_000 }, { ...p, expireDiffMs: 86_400_000 }, 'active'],
    ['expiring by bytes', { totalGB: 1000, up: 500 }, { ...p, trafficDiffBytes: 501 }, 'expiring'],
    ['exactly trafficDiff left', { totalGB: 1000, up: 500 }, { ...p, trafficDiffBytes: 500 }, 'active'],
    ['negative expiry never expiring', { expiryTime: -1000 }, { ...p, expireDiffMs: 86_400_000 }, 'active'],
  ])('%s', (_name, input, params, bucket) => {
    expect(summaryBucket(c(input), params)).toBe(bucket);
  });

  it('filter buckets: active includes expiring; online needs enable and a recent sight', () => {
    const expiring = c({ expiryTime: NOW + 1000 });
    const q = { ...p, expireDiffMs: 86_400_000 };
    expect(inBucket('active', expiring, q)).toBe(true);
    expect(inBucket('expiring', expiring, q)).toBe(true);
    expect(inBucket('online', c({ lastOnline: NOW / 1000 - 20 }), p)).toBe(true);
    expect(inBucket('online', c({ lastOnline: NOW / 1000 - 21 }), p)).toBe(false);
    expect(inBucket('online', c({ enable: false, lastOnline: NOW / 1000 }), p)).toBe(false);
    expect(inBucket('deactive', c({ enable: false, trafficEnable: false }), p)).toBe(false);
    expect(isDepleted(c({ enable: false, trafficEnable: false }), p)).toBe(true);
  });

  it('delDepleted spares quota-depleted clients on periodic reset', () => {
    expect(deletableWhenDepleted({ ...c({ totalGB: 1, up: 1 }), reset: 30 }, p)).toBe(false);
    expect(deletableWhenDepleted({ ...c({ totalGB: 1, up: 1 }), reset: 0 }, p)).toBe(true);
    expect(deletableWhenDepleted({ ...c({ expiryTime: NOW }), reset: 30 }, p)).toBe(true);
    expect(deletableWhenDepleted({ ...c({}), reset: 0 }, p)).toBe(false);
  });
});
