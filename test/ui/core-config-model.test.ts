// The core configuration page's pure model: where broken JSON is, routing rules to and from the form, reordering,
// and the line diff against the default template.
import { describe, expect, it } from 'vitest';
import {
  draftOf,
  emptyDraft,
  hunks,
  jsonProblem,
  lineDiff,
  moved,
  parseObject,
  ruleOf,
  rulesOf,
  withRules,
} from '../../ui/src/pages/core-config-model.js';

describe('core config model', () => {
  it('finds the line and column of a JSON error, and none in valid JSON', () => {
    expect(jsonProblem('{"a": 1}')).toBeNull();
    const p = jsonProblem('{\n  "log": {},\n  "routing": {\n    "rules": [,]\n  }\n}')!;
    expect(p.line).toBe(4);
    expect(p.column).toBeGreaterThan(1);
    expect(p.message).not.toMatch(/position \d+|line \d+ column/);
    // Node 20's V8 gives no position for these: the shortest broken prefix finds them.
    expect(jsonProblem('{\n  "a": 1,\n  "b": tru e\n}')!.line).toBe(3);
    expect(jsonProblem('{\n  "a": "x"\n  "b": 2\n}')!.line).toBe(3);
    expect(jsonProblem('{"a": 1} x')!.column).toBe(10);
    const end = jsonProblem('{\n  "a": 1,\n')!;
    expect(end.line).toBeGreaterThanOrEqual(2);
  });

  it('accepts only a JSON object as a template', () => {
    expect(parseObject('{"x":1}')).toEqual({ x: 1 });
    expect(parseObject('[1]')).toBeNull();
    expect(parseObject('null')).toBeNull();
    expect(parseObject('{')).toBeNull();
  });

  it('turns the rule form into a rule and back, leaving empty fields out and keeping unknown keys', () => {
    const rule = ruleOf({
      ...emptyDraft(),
      tag: ' blocked ',
      domain: 'geosite:ads, example.com\nfoo.org',
      ip: 'geoip:private',
      port: '443',
      network: 'tcp',
      protocol: ['bittorrent'],
    });
    expect(rule).toEqual({
      type: 'field',
      outboundTag: 'blocked',
      domain: ['geosite:ads', 'example.com', 'foo.org'],
      ip: ['geoip:private'],
      port: '443',
      network: 'tcp',
      protocol: ['bittorrent'],
    });
    const back = draftOf(rule);
    expect(back.domain).toBe('geosite:ads, example.com, foo.org');
    expect(ruleOf(back)).toEqual(rule);
    // A balancer rule; an edit keeps keys the form does not show (attrs) and drops the fields cleared.
    const edited = ruleOf(
      { ...emptyDraft(), target: 'balancerTag', tag: 'lb' },
      { type: 'field', outboundTag: 'x', attrs: { a: 1 }, domain: ['d'] },
    );
    expect(edited).toEqual({ type: 'field', balancerTag: 'lb', attrs: { a: 1 } });
    expect(draftOf(edited).target).toBe('balancerTag');
  });

  it('replaces the rules without touching the rest of the template, and moves a rule within bounds', () => {
    const tpl = { log: { loglevel: 'warning' }, routing: { domainStrategy: 'AsIs', rules: [{ a: 1 }] } };
    const next = withRules(tpl, [{ a: 1 }, { b: 2 }]);
    expect(next.routing.domainStrategy).toBe('AsIs');
    expect(rulesOf(next)).toHaveLength(2);
    expect(rulesOf(tpl)).toHaveLength(1);
    expect(rulesOf({})).toEqual([]);
    expect(moved(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moved(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moved(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });

  it('diffs lines and folds long unchanged runs into gaps', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const b = a.replace('line 10', 'line ten').concat('\nline 20');
    const diff = lineDiff(a, b)!;
    expect(diff.filter((d) => d.kind === '-').map((d) => d.text)).toEqual(['line 10']);
    expect(diff.filter((d) => d.kind === '+').map((d) => d.text)).toEqual(['line ten', 'line 20']);
    expect(diff.filter((d) => d.kind === ' ')).toHaveLength(19);
    const rows = hunks(diff, 2);
    expect(rows[0]).toEqual({ kind: 'gap', count: 8 });
    expect(rows.filter((r) => r.kind === 'gap')).toHaveLength(2);
    expect(lineDiff(a, a)!.every((d) => d.kind === ' ')).toBe(true);
    // Too large to compute in the page: null, and the page says so instead of freezing.
    const big = (k: string) => Array.from({ length: 3000 }, (_, i) => `${k}${i}`).join('\n');
    expect(lineDiff(big('x'), big('y'), 1_000_000)).toBeNull();
  });
});
