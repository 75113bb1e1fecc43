// The pure encoder inside the `qrcode` package (no Node APIs, unlike its main entry).
declare module 'qrcode/lib/core/qrcode.js' {
  interface QrSymbol {
    modules: { size: number; data: Uint8Array | boolean[]; get(row: number, col: number): boolean | number };
    version: number;
  }
  const qr: { create(text: string, options?: { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' }): QrSymbol };
  export default qr;
}
