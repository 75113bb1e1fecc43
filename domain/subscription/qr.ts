// QR codes as inline SVG, generated on the server from the `qrcode` package's pure encoder: one <path> of unit
// squares with a 4-module quiet zone; no external requests, no scripts.
import qr from 'qrcode/lib/core/qrcode.js';

/** An <svg> element showing `text` as a QR code; `label` becomes its accessible name (escape it yourself). */
export function qrSvg(text: string, escapedLabel = 'QR code'): string {
  const sym = qr.create(text, { errorCorrectionLevel: text.length > 1200 ? 'L' : 'M' });
  const size = sym.modules.size;
  const data = sym.modules.data;
  const quiet = 4;
  const dim = size + quiet * 2;
  let d = '';
  for (let y = 0; y < size; y++) {
    let x = 0;
    while (x < size) {
      if (!data[y * size + x]) {
        x++;
        continue;
      }
      let run = 1;
      while (x + run < size && data[y * size + x + run]) run++;
      d += `M${x + quiet} ${y + quiet}h${run}v1h-${run}z`;
      x += run;
    }
  }
  return `<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${dim} ${dim}" role="img" aria-label="${escapedLabel}" shape-rendering="crispEdges"><rect width="${dim}" height="${dim}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`;
}
