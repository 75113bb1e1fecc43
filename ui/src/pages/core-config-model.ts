// Pure helpers of the core configuration page: where a JSON text is broken (line and column), the routing rules
// and outbounds of a template edited as objects, and a small line diff (longest common subsequence).

export type Json = Record<string, any>;

export interface JsonProblem {
  /** The parser's own message. */
  message: string;
  /** Offset into the text, 1-based line and column. */
  from: number;
  line: number;
  column: number;
}

/** Null when `text` is valid JSON, else where and why it is not. */
export function jsonProblem(text: string): JsonProblem | null {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    let from = text.length;
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    if (lc) from = offsetOf(text, Number(lc[1]), Number(lc[2]));
    else if (pos) from = Number(pos[1]);
    else if (!/end of (JSON )?input/i.test(message)) from = guessOffset(text);
    from = Math.max(0, Math.min(from, text.length));
    const before = text.slice(0, from);
    const line = before.split('\n').length;
    const column = from - before.lastIndexOf('\n');
    // The line and column are shown by the page in the language of the UI; the engine's own copy is dropped.
    const shown = message
      .replace(/^JSON\.parse: /, '')
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/ in JSON at position \d+$/, '');
    return { message: shown, from, line, column };
  }
}

function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  return at + column - 1;
}

/**
 * Engines whose message gives no position (recent V8: "Unexpected token ',', ... is not valid JSON"): the shortest
 * prefix with a definite error, found by binary search (a prefix that is only cut short is not an error yet, and
 * once a prefix has a definite error every longer one has it too). The offset is that prefix's last character.
 */
function guessOffset(text: string): number {
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (definitelyBroken(text.slice(0, mid))) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

/** True when the prefix already has an error that more text cannot repair. */
function definitelyBroken(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return false;
  } catch (err) {
    const message = String(err instanceof Error ? err.message : err);
    if (/end of (JSON )?(input|data)/i.test(message)) return false;
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    const at = lc ? offsetOf(prefix, Number(lc[1]), Number(lc[2])) : pos ? Number(pos[1]) : -1;
    return at < 0 || at < prefix.length;
  }
}

export const pretty = (v: unknown): string => JSON.stringify(v, null, 2);

/** The template as an object, or null when the text is not a JSON object. */
export function parseObject(text: string): Json | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

export interface RuleDraft {
  target: 'outboundTag' | 'balancerTag';
  tag: string;
  domain: string;
  ip: string;
  port: string;
  network: string;
  protocol: string[];
  inboundTag: string;
}

export const emptyDraft = (): RuleDraft => ({
  target: 'outboundTag',
  tag: '',
  domain: '',
  ip: '',
  port: '',
  network: '',
  protocol: [],
  inboundTag: '',
});

const list = (s: string): string[] =>
  s
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean);

/** A routing rule from the form's fields; fields left empty are left out. */
export function ruleOf(d: RuleDraft, base: Json = {}): Json {
  const r: Json = { ...base, type: 'field' };
  for (const k of ['outboundTag', 'balancerTag', 'domain', 'ip', 'port', 'network', 'protocol', 'inboundTag'])
    delete r[k];
  r[d.target] = d.tag.trim();
  const domain = list(d.domain);
  const ip = list(d.ip);
  const inbound = list(d.inboundTag);
  if (domain.length) r.domain = domain;
  if (ip.length) r.ip = ip;
  if (d.port.trim()) r.port = d.port.trim();
  if (d.network) r.network = d.network;
  if (d.protocol.length) r.protocol = d.protocol;
  if (inbound.length) r.inboundTag = inbound;
  return r;
}

const joined = (v: unknown): string => (Array.isArray(v) ? v.join(', ') : v === undefined ? '' : String(v));

export function draftOf(r: Json): RuleDraft {
  return {
    target: r.balancerTag !== undefined && r.outboundTag === undefined ? 'balancerTag' : 'outboundTag',
    tag: String(r.outboundTag ?? r.balancerTag ?? ''),
    domain: joined(r.domain),
    ip: joined(r.ip),
    port: joined(r.port),
    network: String(r.network ?? ''),
    protocol: Array.isArray(r.protocol) ? r.protocol.map(String) : r.protocol ? [String(r.protocol)] : [],
    inboundTag: joined(r.inboundTag),
  };
}

export const rulesOf = (tpl: Json): Json[] => (Array.isArray(tpl.routing?.rules) ? tpl.routing.rules : []);
export const outboundsOf = (tpl: Json): Json[] => (Array.isArray(tpl.outbounds) ? tpl.outbounds : []);
export const balancersOf = (tpl: Json): Json[] => (Array.isArray(tpl.routing?.balancers) ? tpl.routing.balancers : []);

/** A copy of the template with its routing rules replaced. */
export function withRules(tpl: Json, rules: Json[]): Json {
  return { ...tpl, routing: { ...(tpl.routing ?? {}), rules } };
}

export function withOutbounds(tpl: Json, outbounds: Json[]): Json {
  return { ...tpl, outbounds };
}

/** Moves item i by delta (-1 up, +1 down); out of range leaves the list as it is. */
export function moved<T>(xs: T[], i: number, delta: number): T[] {
  const j = i + delta;
  if (i < 0 || i >= xs.length || j < 0 || j >= xs.length) return xs;
  const out = xs.slice();
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

export type DiffLine = { kind: ' ' | '+' | '-'; text: string };

/** Line diff of `a` (old) to `b` (new) by longest common subsequence; null when too large to compute here. */
export function lineDiff(a: string, b: string, maxCells = 4_000_000): DiffLine[] | null {
  const x = a.split('\n');
  const y = b.split('\n');
  // Common head and tail are cut first: most edits are local.
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  const n = xs.length;
  const m = ys.length;
  if (n * m > maxCells) return null;
  // lcs[i][j]: length of the LCS of xs[i..] and ys[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] =
        xs[i] === ys[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
  const out: DiffLine[] = x.slice(0, head).map((text) => ({ kind: ' ', text }));
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (xs[i] === ys[j]) {
      out.push({ kind: ' ', text: xs[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) out.push({ kind: '-', text: xs[i++]! });
    else out.push({ kind: '+', text: ys[j++]! });
  }
  while (i < n) out.push({ kind: '-', text: xs[i++]! });
  while (j < m) out.push({ kind: '+', text: ys[j++]! });
  for (const text of x.slice(x.length - tail)) out.push({ kind: ' ', text });
  return out;
}

export type DiffRow = DiffLine | { kind: 'gap'; count: number };

/** The changed lines with `context` unchanged lines around each; longer unchanged runs become one gap row. */
export function hunks(diff: DiffLine[], context = 3): DiffRow[] {
  const near = new Uint8Array(diff.length);
  diff.forEach((d, i) => {
    if (d.kind === ' ') return;
    for (let j = Math.max(0, i - context); j <= Math.min(diff.length - 1, i + context); j++) near[j] = 1;
  });
  const out: DiffRow[] = [];
  let gap = 0;
  diff.forEach((d, i) => {
    if (near[i]) {
      if (gap) out.push({ kind: 'gap', count: gap });
      gap = 0;
      out.push(d);
    } else gap++;
  });
  if (gap) out.push({ kind: 'gap', count: gap });
  return out;
}
