// The kept `settings.clients` texts of inbounds/get (domain/inbounds/clients-text-cache.ts).
import { describe, expect, it } from 'vitest';
import { ClientsTextCache } from '../../domain/inbounds/clients-text-cache.js';

describe('ClientsTextCache', () => {
  it('gives a kept text back for the same inbound and projection only', () => {
    const cache = new ClientsTextCache(100);
    cache.put(1, 'vless/true', '[a]', false, cache.mark);
    expect(cache.get(1, 'vless/true')).toBe('[a]');
    expect(cache.get(1, 'vless/false')).toBeNull();
    expect(cache.get(2, 'vless/true')).toBeNull();
  });

  it('does not keep a read that a drop overtook', () => {
    const cache = new ClientsTextCache(100);
    const before = cache.mark;
    cache.dropAll();
    cache.put(1, 's', '[old]', false, before);
    expect(cache.get(1, 's')).toBeNull();
    const during = cache.mark;
    cache.trafficMoved(); // a tick while the read ran: it may hold an expiry from before the tick
    cache.put(1, 's', '[old]', false, during);
    expect(cache.get(1, 's')).toBeNull();
  });

  it('a traffic tick drops only the texts that show a delayed expiry', () => {
    const cache = new ClientsTextCache(100);
    cache.put(1, 's', '[waiting]', true, cache.mark);
    cache.put(2, 's', '[running]', false, cache.mark);
    cache.trafficMoved();
    expect(cache.get(1, 's')).toBeNull();
    expect(cache.get(2, 's')).toBe('[running]');
    cache.dropAll();
    expect(cache.get(2, 's')).toBeNull();
  });

  it('keeps at most maxChars, dropping the least recently used first; a text longer than that is not kept', () => {
    const cache = new ClientsTextCache(10);
    cache.put(1, 's', 'aaaa', false, cache.mark);
    cache.put(2, 's', 'bbbb', false, cache.mark);
    expect(cache.get(1, 's')).toBe('aaaa'); // 1 is now the most recently used
    cache.put(3, 's', 'cccc', false, cache.mark);
    expect(cache.get(2, 's')).toBeNull();
    expect(cache.get(1, 's')).toBe('aaaa');
    expect(cache.get(3, 's')).toBe('cccc');
    cache.put(1, 's', 'aaaaaa', false, cache.mark); // replacing counts the new length only
    expect(cache.get(3, 's')).toBe('cccc');
    cache.put(4, 's', 'x'.repeat(11), false, cache.mark);
    expect(cache.get(4, 's')).toBeNull();
    expect(cache.get(1, 's')).toBe('aaaaaa');
  });
});
