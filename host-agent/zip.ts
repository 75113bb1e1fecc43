// Reading one file out of a zip archive in memory (stored or deflated; no zip64, no encryption), with a cap on
// the unpacked size and a CRC-32 check. Enough for core release archives; no dependency needed.
import { crc32, inflateRawSync } from 'node:zlib';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export function listZip(zip: Uint8Array): ZipEntry[] {
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (v.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive');
  const count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || v.getUint32(at, true) !== CENTRAL) throw new Error('damaged zip central directory');
    const flags = v.getUint16(at + 8, true);
    const nameLen = v.getUint16(at + 28, true);
    const extraLen = v.getUint16(at + 30, true);
    const commentLen = v.getUint16(at + 32, true);
    const entry: ZipEntry = {
      method: v.getUint16(at + 10, true),
      crc: v.getUint32(at + 16, true),
      compressedSize: v.getUint32(at + 20, true),
      size: v.getUint32(at + 24, true),
      localOffset: v.getUint32(at + 42, true),
      name: new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLen)),
    };
    if (flags & 1) throw new Error(`zip entry ${entry.name} is encrypted`);
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff)
      throw new Error('zip64 archives are not supported');
    entries.push(entry);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** The content of entry `name` (exact path inside the archive); throws when missing, damaged or too large. */
export function readZipEntry(zip: Uint8Array, name: string, maxBytes: number): Uint8Array {
  const entry = listZip(zip).find((e) => e.name === name);
  if (!entry) throw new Error(`${name} is not in the archive`);
  if (entry.size > maxBytes) throw new Error(`${name} is larger than ${maxBytes} bytes`);
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const lo = entry.localOffset;
  if (lo + 30 > zip.length || v.getUint32(lo, true) !== LOCAL) throw new Error('damaged zip local header');
  const start = lo + 30 + v.getUint16(lo + 26, true) + v.getUint16(lo + 28, true);
  const raw = zip.subarray(start, start + entry.compressedSize);
  if (raw.length !== entry.compressedSize) throw new Error('truncated zip archive');
  let out: Uint8Array;
  if (entry.method === 0) out = raw;
  else if (entry.method === 8) out = inflateRawSync(raw, { maxOutputLength: Math.max(1, maxBytes) });
  else throw new Error(`unsupported zip compression method ${entry.method}`);
  if (out.length !== entry.size || crc32(out) >>> 0 !== entry.crc)
    throw new Error(`${name}: checksum mismatch in the archive`);
  return out;
}
