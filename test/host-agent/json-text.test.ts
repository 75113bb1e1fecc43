// jsonText: a large value as JSON text in bounded pieces (the core config write and test at 100,000 clients).
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../host-agent/core/json-text.js';

const text = (v: unknown, depth?: number, chunk?: number) => [...jsonText(v, depth, chunk)].join('');

describe('jsonText', () => {
  it('parses to what JSON.stringify gives, for every kind of value JSON.stringify treats specially', () => {
    const value = {
      a: 1,
      s: 'quote " backslash \\ newline \n unicode ✓ \u2028',
      n: null,
      t: true,
      skip: undefined,
      f: () => 1,
      when: new Date(0),
      nested: { deep: { deeper: { deepest: { leaf: [1, { x: 2 }] } } } },
      list: [1, undefined, () => 2, 'x', [], {}, [[[]]]],
      empty: [],
      obj: {},
    };
    for (const depth of [0, 1, 2, 5, 10]) {
      expect(JSON.parse(text(value, depth)), `depth ${depth}`).toEqual(JSON.parse(JSON.stringify(value)));
    }
    expect(text(42)).toBe('42');
    expect(text('x')).toBe('"x"');
    expect(JSON.parse(text([]))).toEqual([]);
  });

  it('a config of 20,000 clients comes in pieces near the chunk size, one client entry per line', () => {
    const config = {
      log: { loglevel: 'warning' },
      inbounds: [
        {
          tag: 'in-1',
          settings: { clients: Array.from({ length: 20_000 }, (_, i) => ({ id: `uuid-${i}`, email: `u${i}@x` })) },
        },
      ],
    };
    const pieces = [...jsonText(config, 5, 64 * 1024)];
    expect(pieces.length).toBeGreaterThan(10);
    for (const p of pieces.slice(0, -1)) expect(p.length).toBeLessThan(64 * 1024 + 200);
    const whole = pieces.join('');
    expect(JSON.parse(whole)).toEqual(config);
    expect(whole.split('\n').filter((l) => l.includes('"email"'))).toHaveLength(20_000);
  });
});
