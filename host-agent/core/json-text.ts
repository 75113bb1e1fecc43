// A large value as JSON text in pieces of about `chunkBytes`, without ever holding the whole text: the core config at
// 100,000 clients is ~17 MB of JSON (27 MB indented), and building it as one string (plus the UTF-8 copy a write
// makes) added ~60 MB to the panel's peak memory on every config write and test.
// Arrays and objects are opened down to `depth` levels (the config's client entries sit at level 5: inbounds →
// [i] → settings → clients → [j]); below that each value is one JSON.stringify. Each element of an opened array
// starts on its own line, so the file stays readable. The text parses to the same value as JSON.stringify(value).

export function* jsonText(value: unknown, depth = 5, chunkBytes = 1 << 20): Generator<string> {
  let buf = '';
  for (const piece of pieces(value, depth)) {
    buf += piece;
    if (buf.length >= chunkBytes) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}

function* pieces(value: unknown, depth: number): Generator<string> {
  const v =
    value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function'
      ? (value as { toJSON: () => unknown }).toJSON()
      : value;
  if (depth <= 0 || v === null || typeof v !== 'object') {
    yield JSON.stringify(v) ?? 'null';
    return;
  }
  if (Array.isArray(v)) {
    yield '[';
    for (let i = 0; i < v.length; i++) {
      yield i === 0 ? '\n' : ',\n';
      const item = v[i];
      // As JSON.stringify: undefined, functions and symbols in arrays become null.
      yield* pieces(
        item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : item,
        depth - 1,
      );
    }
    yield v.length ? '\n]' : ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue; // as JSON.stringify
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* pieces(item, depth - 1);
  }
  yield '}';
}
