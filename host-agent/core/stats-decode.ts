// A direct decoder for StatsService's QueryStatsResponse (`repeated Stat stat = 1; Stat { string name = 1;
// int64 value = 2; }`), used as the gRPC response deserializer of QueryStats. The generic proto-loader path
// (objects with defaults, int64 → Long → string, then Number) took ~190 ms for 200,000 counters; reading the wire
// format straight into {name, value} takes a fraction of that. Unknown fields are skipped like any protobuf reader.
import type { CoreStat } from '../../domain/ports/core.js';

// Buffer's own UTF-8 slice (what toString('utf8', s, e) calls after its argument checks); typed here.
declare module 'node:buffer' {
  interface Buffer {
    utf8Slice(start: number, end: number): string;
  }
}

class Wire {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /**
   * A varint as a JS number. Up to 7 bytes (< 2^49) the fast path; longer ones (huge or negative int64 values,
   * which protobuf writes as 10 bytes) are re-read exactly with BigInt and, for `int64`, taken as signed.
   */
  varint(int64 = false): number {
    const b = this.buf;
    const start = this.pos;
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      if (this.pos >= this.end) throw new Error('QueryStatsResponse: truncated varint');
      byte = b[this.pos++]!;
      if (shift < 28) value |= (byte & 0x7f) << shift;
      else value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80 && shift < 70);
    if (byte & 0x80) throw new Error('QueryStatsResponse: varint too long');
    if (shift <= 49) return value;
    let big = 0n;
    for (let i = this.pos - 1; i >= start; i--) big = (big << 7n) | BigInt(b[i]! & 0x7f);
    return Number(int64 ? BigInt.asIntN(64, big) : BigInt.asUintN(64, big));
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2: {
        const n = this.varint();
        this.pos += n;
        break;
      }
      case 5:
        this.pos += 4;
        break;
      default:
        throw new Error(`QueryStatsResponse: unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new Error('QueryStatsResponse: truncated field');
  }
}

/** One Stat message occupying `w.pos` … `end`; leaves `w.pos` at `end`. */
function decodeStat(w: Wire, end: number): CoreStat {
  const buf = w.buf;
  let name = '';
  let value = 0;
  while (w.pos < end) {
    const key = w.varint();
    const field = Math.floor(key / 8);
    const type = key & 7;
    if (field === 1 && type === 2) {
      const n = w.varint();
      if (w.pos + n > end) throw new Error('QueryStatsResponse: truncated name');
      name = buf.utf8Slice(w.pos, w.pos + n);
      w.pos += n;
    } else if (field === 2 && type === 0) {
      value = w.varint(true);
    } else w.skip(type);
  }
  if (w.pos !== end) throw new Error('QueryStatsResponse: truncated stat');
  return { name, value };
}

/** The counters of one QueryStatsResponse. */
export function decodeQueryStats(buf: Buffer): CoreStat[] {
  const out: CoreStat[] = [];
  const w = new Wire(buf, 0, buf.length);
  while (w.pos < buf.length) {
    const key = w.varint();
    const field = Math.floor(key / 8);
    const type = key & 7;
    if (field === 1 && type === 2) {
      const n = w.varint();
      if (w.pos + n > buf.length) throw new Error('QueryStatsResponse: truncated stat');
      out.push(decodeStat(w, w.pos + n));
    } else w.skip(type);
  }
  return out;
}
