// The direct QueryStatsResponse decoder against protobufjs (the reference encoder/decoder of the same .proto):
// names with any UTF-8, values up to 2^53, zero values (omitted on the wire), negative int64, unknown fields.
import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { PROTO_PATH } from '../../host-agent/core/grpc-client.js';
import { decodeQueryStats } from '../../host-agent/core/stats-decode.js';

const root = protobuf.loadSync(PROTO_PATH);
const Response = root.lookupType('panelcore.QueryStatsResponse');
const encode = (stat: { name: string; value: number | string }[]) =>
  Buffer.from(Response.encode(Response.fromObject({ stat })).finish());

describe('QueryStatsResponse decoder', () => {
  it('reads every counter as protobufjs does', () => {
    const stat = [
      { name: 'user>>>alice@x>>>traffic>>>uplink', value: 1 },
      { name: 'user>>>ünï 🚀@x>>>traffic>>>downlink', value: 127 },
      { name: 'inbound>>>in-1>>>traffic>>>downlink', value: 128 },
      { name: 'outbound>>>direct>>>traffic>>>uplink', value: 2 ** 31 },
      { name: 'outbound>>>direct>>>traffic>>>downlink', value: 2 ** 32 + 5 },
      { name: 'user>>>big@x>>>traffic>>>uplink', value: Number.MAX_SAFE_INTEGER },
      { name: 'user>>>zero@x>>>traffic>>>uplink', value: 0 },
      { name: '', value: 7 },
    ];
    const decoded = decodeQueryStats(encode(stat));
    expect(decoded).toEqual(stat);
    const reference = (
      Response.toObject(Response.decode(encode(stat)), { longs: Number, defaults: true }) as { stat: unknown[] }
    ).stat;
    expect(decoded).toEqual(reference);
  });

  it('reads a negative int64 as a negative number (rejected later by the accounting)', () => {
    expect(decodeQueryStats(encode([{ name: 'n', value: '-5' }]))).toEqual([{ name: 'n', value: -5 }]);
  });

  it('skips unknown fields in the response and in each stat', () => {
    const w = protobuf.Writer.create();
    w.uint32((9 << 3) | 0).uint64(42); // unknown varint field
    const stat = protobuf.Writer.create();
    stat.uint32((3 << 3) | 5).fixed32(1); // unknown 32-bit field
    stat.uint32((1 << 3) | 2).string('user>>>a@x>>>traffic>>>uplink');
    stat.uint32((4 << 3) | 1).fixed64(1); // unknown 64-bit field
    stat.uint32((2 << 3) | 0).int64(300);
    stat.uint32((5 << 3) | 2).bytes(Buffer.from('xyz')); // unknown length-delimited field
    w.uint32((1 << 3) | 2).bytes(stat.finish());
    expect(decodeQueryStats(Buffer.from(w.finish()))).toEqual([{ name: 'user>>>a@x>>>traffic>>>uplink', value: 300 }]);
  });

  it('an empty response has no counters; a truncated one fails instead of inventing counters', () => {
    expect(decodeQueryStats(Buffer.alloc(0))).toEqual([]);
    const full = encode([{ name: 'user>>>a@x>>>traffic>>>uplink', value: 300 }]);
    expect(() => decodeQueryStats(full.subarray(0, full.length - 3))).toThrow(/truncated/);
  });
});
