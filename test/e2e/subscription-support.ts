// Helpers for the subscription end-to-end suites: the panel started through the node adapter with a real core,
// free ports, a target HTTP server, real clients (v2ray, ss-local) and a link parser written the way a client
// app reads links (independent of the panel's own builders).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer as createNetServer, connect as netConnect, type Server as NetServer } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PanelServer } from '../../adapters/node/server.js';
import { createLogger } from '../../adapters/node/logger.js';
import { panelVersion } from '../../adapters/node/config.js';

export const CORE_BIN = process.env.PANEL_TEST_CORE_BIN || '';
/** `n` distinct free TCP ports on 127.0.0.1 (all probe sockets are held until every port is known). */
export async function freePorts(n: number): Promise<number[]> {
  const servers: NetServer[] = [];
  const ports: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = createNetServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    servers.push(s);
    ports.push((s.address() as { port: number }).port);
  }
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export const isPortFree = async (port: number): Promise<boolean> => {
  const s = createNetServer();
  const ok = await new Promise<boolean>((r) => {
    s.once('error', () => r(false));
    s.listen(port, '127.0.0.1', () => r(true));
  });
  if (ok) await new Promise((r) => s.close(r));
  return ok;
};

export async function waitForPort(port: number, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const ok = await new Promise<boolean>((r) => {
      const sock = netConnect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        r(true);
      });
      sock.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`port ${port} did not open within ${timeoutMs} ms`);
}

/** An HTTP server answering every request with the same random payload. */
export async function targetServer(
  bytes = 64 * 1024,
): Promise<{ port: number; payload: Buffer; close(): Promise<void> }> {
  const payload = randomBytes(bytes);
  const server: HttpServer = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': payload.length });
    res.end(payload);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    payload,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** GET through a SOCKS5 proxy with curl; resolves to the body, or null when the transfer fails. */
export function curlViaSocks(socksPort: number, url: string, timeoutSec = 5): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const p = spawn('curl', [
      '-sS',
      '--fail',
      '--max-time',
      String(timeoutSec),
      '--socks5-hostname',
      `127.0.0.1:${socksPort}`,
      url,
    ]);
    const chunks: Buffer[] = [];
    p.stdout.on('data', (d) => chunks.push(d));
    p.on('exit', (code) => resolve(code === 0 ? Buffer.concat(chunks) : null));
  });
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of running) p.kill('SIGKILL');
});

/** Starts a process and waits until `port` accepts connections. */
export async function startProcess(
  cmd: string,
  args: string[],
  port: number,
  input?: string,
): Promise<{ proc: ChildProcess; stop(): Promise<void>; output(): string }> {
  const proc = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(proc);
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  if (input !== undefined) proc.stdin!.end(input);
  else proc.stdin!.end();
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    }
    running.delete(proc);
  };
  try {
    await waitForPort(port);
  } catch (err) {
    await stop();
    throw new Error(`${cmd} did not listen on ${port}: ${out}`, { cause: err });
  }
  return { proc, stop, output: () => out };
}

/** `v2ray -test` on a config; returns the exit code and output. */
export function v2rayTest(config: unknown): { code: number; output: string } {
  const r = spawnSync(CORE_BIN, ['-test', '-config', 'stdin:'], {
    input: JSON.stringify(config),
    encoding: 'utf8',
    timeout: 10_000,
  });
  return { code: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}

export const runV2ray = (config: unknown, socksPort: number) =>
  startProcess(CORE_BIN, ['-config', 'stdin:'], socksPort, JSON.stringify(config));

// --- link parsing, as a client app does it -------------------------------------------------------------------

const b64decode = (s: string) => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');

export interface ParsedLink {
  scheme: string;
  host: string;
  port: number;
  /** id (vless/vmess) or password (trojan/ss). */
  secret: string;
  method?: string;
  network: string;
  path?: string;
  host_header?: string;
  security: string;
  name: string;
}

export function parseLink(link: string): ParsedLink {
  const scheme = link.slice(0, link.indexOf('://'));
  if (scheme === 'vmess') {
    const o = JSON.parse(b64decode(link.slice(8)));
    return {
      scheme,
      host: o.add,
      port: Number(o.port),
      secret: o.id,
      method: o.scy,
      network: o.net,
      path: o.path,
      host_header: o.host,
      security: o.tls === 'tls' ? 'tls' : 'none',
      name: o.ps,
    };
  }
  const u = new URL(link);
  const q = u.searchParams;
  const base = {
    scheme,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port),
    network: q.get('type') ?? 'tcp',
    path: q.get('path') ?? undefined,
    host_header: q.get('host') ?? undefined,
    security: q.get('security') ?? 'none',
    name: decodeURIComponent(u.hash.slice(1)),
  };
  if (scheme === 'ss') {
    const decoded = b64decode(decodeURIComponent(u.username));
    const i = decoded.indexOf(':');
    return { ...base, method: decoded.slice(0, i), secret: decoded.slice(i + 1) };
  }
  return { ...base, secret: decodeURIComponent(u.username) };
}

/** A v2ray client config with a socks inbound on `socksPort` and the outbound a link describes. */
export function v2rayClientConfig(l: ParsedLink, socksPort: number): unknown {
  const stream: Record<string, unknown> = { network: l.network, security: l.security === 'tls' ? 'tls' : 'none' };
  if (l.network === 'ws')
    stream.wsSettings = { path: l.path ?? '/', ...(l.host_header ? { headers: { Host: l.host_header } } : {}) };
  if (l.security === 'tls') stream.tlsSettings = { allowInsecure: true };
  let settings: unknown;
  switch (l.scheme) {
    case 'vmess':
      settings = {
        vnext: [{ address: l.host, port: l.port, users: [{ id: l.secret, security: l.method || 'auto' }] }],
      };
      break;
    case 'vless':
      settings = { vnext: [{ address: l.host, port: l.port, users: [{ id: l.secret, encryption: 'none' }] }] };
      break;
    case 'trojan':
      settings = { servers: [{ address: l.host, port: l.port, password: l.secret }] };
      break;
    case 'ss':
      settings = { servers: [{ address: l.host, port: l.port, method: l.method, password: l.secret }] };
      break;
    default:
      throw new Error(`no v2ray client for ${l.scheme}`);
  }
  return {
    log: { loglevel: 'warning' },
    inbounds: [
      {
        tag: 'socks',
        listen: '127.0.0.1',
        port: socksPort,
        protocol: 'socks',
        settings: { auth: 'noauth', udp: false },
      },
    ],
    outbounds: [
      { tag: 'proxy', protocol: l.scheme === 'ss' ? 'shadowsocks' : l.scheme, settings, streamSettings: stream },
    ],
  };
}

// --- the panel ------------------------------------------------------------------------------------------------

export interface Panel {
  server: PanelServer;
  /** Lines the adapter printed (start-up lines). */
  printed: string[];
  dataDir: string;
  panelUrl: string;
  subUrl: string;
  api(method: string, path: string, body?: unknown): Promise<any>;
  stop(): Promise<void>;
}

/** Starts the panel through the node adapter on free loopback ports with the real core. */
export async function startPanel(): Promise<Panel> {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-e2e-sub-'));
  const [webPort, subPort, apiPort] = await freePorts(3);
  const printed: string[] = [];
  const server = new PanelServer(
    {
      dataDir,
      dbUrl: `file:${join(dataDir, 'panel.db')}`,
      overrides: { webListen: '127.0.0.1', webPort: webPort!, subListen: '127.0.0.1', subPort: subPort! },
      overrideSources: {},
      adminUsername: 'admin',
      adminPassword: 'e2e-password-123',
      // Without a test core the panel still serves everything (the page test needs no core).
      coreBin: CORE_BIN || join(dataDir, 'no-core-binary'),
      coreApiPort: apiPort!,
      logLevel: 'error',
      panelVersion: panelVersion(),
    },
    createLogger('error'),
    (line) => printed.push(line),
  );
  await server.start();
  const base = server.panelUrl;
  const login = await fetch(`${base}login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'e2e-password-123' }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = (await (await fetch(`${base}csrf-token`, { headers: { cookie } })).json()).obj;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path.replace(/^\//, '')}`, {
      method,
      headers: { cookie, 'x-csrf-token': csrf, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  return {
    server,
    printed,
    dataDir,
    panelUrl: base,
    get subUrl() {
      return server.subUrl;
    },
    api,
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
