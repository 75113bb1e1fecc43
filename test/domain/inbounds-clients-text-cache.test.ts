// The kept `settings.clients` texts of inbounds/get (domain/inbounds/clients-text-cache.ts).
import { describe, expect, it } from 'vitest';
import { ClientsTextCache, MAX_PATCHED_EMAILS, type ReadEntries } from '../../domain/inbounds/clients-text-cache.js';

const entry = (id: number, email: string, note = '') => ({
  id,
  email,
  json: `{"email":${JSON.stringify(email)},"n":"${note}"}`,
  delayedStart: false,
});
const array = (...entries: { json: string }[]) => `[${entries.map((e) => e.json).join(',')}]`;

/** A ReadEntries over a fixed set of current entries, recording the emails asked for. */
function reader(current: ReturnType<typeof entry>[]) {
  const asked: string[][] = [];
  const read: ReadEntries = async (emails) => {
    asked.push(emails);
    return current.filter((c) => emails.includes(c.email));
  };
  return { read, asked };
}
const none: ReadEntries = async () => {
  throw new Error('nothing is changed: no read expected');
};

describe('ClientsTextCache', () => {
  it('gives a kept text back for the same inbound and projection only', async () => {
    const cache = new ClientsTextCache(100);
    cache.put(1, 'vless/true', '[a]', 0, false, cache.mark);
    expect(await cache.get(1, 'vless/true', none)).toBe('[a]');
    expect(await cache.get(1, 'vless/false', none)).toBeNull();
    expect(await cache.get(2, 'vless/true', none)).toBeNull();
  });

  it('does not keep a full read that a change overtook', async () => {
    const cache = new ClientsTextCache(100);
    let before = cache.mark;
    cache.dropAll();
    cache.put(1, 's', '[old]', 0, false, before);
    expect(await cache.get(1, 's', none)).toBeNull();
    before = cache.mark;
    cache.clientsChanged(['a@x']);
    cache.put(1, 's', '[old]', 0, false, before);
    expect(await cache.get(1, 's', none)).toBeNull();
    const during = cache.mark;
    cache.trafficMoved(); // a tick while the read ran: it may hold an expiry from before the tick
    cache.put(1, 's', '[old]', 0, false, during);
    expect(await cache.get(1, 's', none)).toBeNull();
  });

  it('patches the entries of a few changed clients on the next read, reading just those', async () => {
    const a = entry(1, 'a@x'),
      b = entry(2, 'b@x'),
      c = entry(3, 'c@x');
    const cache = new ClientsTextCache(1000);
    cache.put(7, 's', array(a, b, c), 3, false, cache.mark);
    const now = reader([a, entry(2, 'b@x', 'changed'), entry(4, 'new@x')]); // c deleted, new@x added
    cache.clientsChanged(['b@x']);
    cache.clientsChanged(['c@x', 'new@x']);
    const text = await cache.get(7, 's', now.read);
    expect(JSON.parse(text!)).toEqual([
      { email: 'a@x', n: '' },
      { email: 'b@x', n: 'changed' },
      { email: 'new@x', n: '' },
    ]);
    expect(now.asked).toEqual([['b@x', 'c@x', 'new@x']]);
    expect(await cache.get(7, 's', none)).toBe(text); // patched once, kept
  });

  it('a change of more clients than it patches drops the texts, as does a change of all', async () => {
    const cache = new ClientsTextCache(1000);
    cache.put(1, 's', '[]', 0, false, cache.mark);
    cache.clientsChanged(Array.from({ length: MAX_PATCHED_EMAILS + 1 }, (_, i) => `c${i}@x`));
    expect(await cache.get(1, 's', none)).toBeNull();
    cache.put(1, 's', '[]', 0, false, cache.mark);
    for (let i = 0; i < MAX_PATCHED_EMAILS; i++) cache.clientsChanged([`c${i}@x`]);
    expect(cache.mark).toBeGreaterThan(0);
    cache.clientsChanged(['one-more@x']); // the marks add up
    expect(await cache.get(1, 's', none)).toBeNull();
    cache.put(1, 's', '[]', 0, false, cache.mark);
    cache.clientsChanged('all');
    expect(await cache.get(1, 's', none)).toBeNull();
  });

  it('drops a text it cannot patch (an older client newly attached): the caller builds it again', async () => {
    const a = entry(1, 'a@x'),
      c = entry(3, 'c@x');
    const cache = new ClientsTextCache(1000);
    cache.put(1, 's', array(a, c), 3, false, cache.mark);
    cache.clientsChanged(['b@x']);
    expect(await cache.get(1, 's', reader([a, entry(2, 'b@x'), c]).read)).toBeNull();
    expect(await cache.get(1, 's', none)).toBeNull();
  });

  it('an email changed again while its entry was read stays marked for the next read', async () => {
    const cache = new ClientsTextCache(1000);
    cache.put(1, 's', array(entry(1, 'a@x')), 1, false, cache.mark);
    cache.clientsChanged(['a@x']);
    let version = 'v1';
    const read: ReadEntries = async () => {
      const seen = version;
      cache.clientsChanged(['a@x']); // a second update lands while the first patch reads
      version = 'v2';
      return [entry(1, 'a@x', seen)];
    };
    expect(JSON.parse((await cache.get(1, 's', read))!)[0].n).toBe('v1');
    const again = reader([entry(1, 'a@x', 'v2')]);
    expect(JSON.parse((await cache.get(1, 's', again.read))!)[0].n).toBe('v2');
    expect(again.asked).toEqual([['a@x']]);
  });

  it('patches of one text run one at a time: a read that comes during a patch waits for it', async () => {
    const cache = new ClientsTextCache(1000);
    cache.put(1, 's', array(entry(1, 'a@x')), 1, false, cache.mark);
    cache.clientsChanged(['a@x']);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let reads = 0;
    const slow: ReadEntries = async () => {
      reads++;
      await gate;
      return [entry(1, 'a@x', 'new')];
    };
    const first = cache.get(1, 's', slow);
    const second = cache.get(1, 's', slow);
    release();
    const [t1, t2] = await Promise.all([first, second]);
    expect(reads).toBe(1);
    expect(t2).toBe(t1);
    expect(JSON.parse(t1!)[0].n).toBe('new');
  });

  it('a traffic tick drops only the texts that show a delayed expiry, including one a patch brought in', async () => {
    const cache = new ClientsTextCache(1000);
    cache.put(1, 's', '[waiting]', 0, true, cache.mark);
    cache.put(2, 's', '[]', 0, false, cache.mark);
    cache.put(3, 's', '[]', 0, false, cache.mark);
    cache.trafficMoved();
    expect(await cache.get(1, 's', none)).toBeNull();
    expect(await cache.get(2, 's', none)).toBe('[]');
    cache.clientsChanged(['later@x']);
    await cache.get(3, 's', async () => [{ ...entry(5, 'later@x'), delayedStart: true }]);
    await cache.get(2, 's', async () => []);
    cache.trafficMoved();
    expect(await cache.get(3, 's', none)).toBeNull();
    expect(await cache.get(2, 's', none)).toBe('[]');
    cache.dropAll();
    expect(await cache.get(2, 's', none)).toBeNull();
  });

  it('keeps at most maxChars, dropping the least recently used first; a text longer than that is not kept', async () => {
    const cache = new ClientsTextCache(10);
    cache.put(1, 's', 'aaaa', 0, false, cache.mark);
    cache.put(2, 's', 'bbbb', 0, false, cache.mark);
    expect(await cache.get(1, 's', none)).toBe('aaaa'); // 1 is now the most recently used
    cache.put(3, 's', 'cccc', 0, false, cache.mark);
    expect(await cache.get(2, 's', none)).toBeNull();
    expect(await cache.get(1, 's', none)).toBe('aaaa');
    expect(await cache.get(3, 's', none)).toBe('cccc');
    cache.put(1, 's', 'aaaaaa', 0, false, cache.mark); // replacing counts the new length only
    expect(await cache.get(3, 's', none)).toBe('cccc');
    cache.put(4, 's', 'x'.repeat(11), 0, false, cache.mark);
    expect(await cache.get(4, 's', none)).toBeNull();
    expect(await cache.get(1, 's', none)).toBe('aaaaaa');
  });
});
