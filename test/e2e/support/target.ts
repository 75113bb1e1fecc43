// A local HTTP server to download bytes from: GET /bytes/N sends N bytes; GET /slow/N?ms=T sends N bytes spread
// over about T milliseconds (an "open download" that other changes must not interrupt).
import { createServer, type Server } from 'node:http';

export interface Target {
  port: number;
  url(path: string): string;
  close(): Promise<void>;
}

export async function startTarget(): Promise<Target> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const m = /^\/(bytes|slow)\/(\d+)$/.exec(u.pathname);
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const total = Number(m[2]);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
    if (m[1] === 'bytes') {
      let left = total;
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    const ms = Number(u.searchParams.get('ms') ?? 3000);
    const steps = 30;
    const per = Math.ceil(total / steps);
    let sent = 0;
    const timer = setInterval(() => {
      const n = Math.min(per, total - sent);
      if (n > 0) res.write(Buffer.alloc(n, 0x62));
      sent += n;
      if (sent >= total) {
        clearInterval(timer);
        res.end();
      }
    }, ms / steps);
    res.once('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
