// Writes .br and .gz next to every built UI asset, so the panel serves them precompressed (no work per request).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
const dir = 'dist/ui/assets';
for (const name of readdirSync(dir)) {
  if (name.endsWith('.br') || name.endsWith('.gz')) continue;
  const body = readFileSync(`${dir}/${name}`);
  writeFileSync(`${dir}/${name}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${dir}/${name}.gz`, gzipSync(body, { level: 9 }));
}
