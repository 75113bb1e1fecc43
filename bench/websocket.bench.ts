// WebSocket push channel with 200 connected clients: the built panel (dist/adapters/node/main.js) runs in its
// own process on loopback (no core binary, so the figure is the panel alone); 200 `ws` clients in this process
// log in with one session cookie. Measured over 30 s of idle (no API requests, only the 2-second `status` pushes):
//   - the spread of each `status` message: last arrival minus first arrival over the 200 clients;
//   - the panel process's CPU (utime + stime from /proc/PID/stat) as a percent of one core.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { median, type Benchmark, type BenchRow } from './types.js';

const CLIENTS = Number(process.env.BENCH_WS_CLIENTS || 200);
const IDLE_S = Number(process.env.BENCH_WS_SECONDS || 30);
const MAIN = fileURLToPath(new URL('../dist/adapters/node/main.js', import.meta.url));
const ADMIN = { username: 'bench-admin', password: 'bench-password-123' };
const CLK_TCK = 100; // USER_HZ on Linux

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import('node:net').Server>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // fields 14 and 15 of the full line
}

async function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`panel did not print ${pattern}: ${out}`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`panel exited (${code}): ${out}`)));
  });
}

const bench: Benchmark = async (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'panel-ws-bench-'));
  const [panelPort, subPort, apiPort] = await freePorts(3);
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PANEL_DATA_DIR: dir,
      PANEL_LISTEN: '127.0.0.1',
      PANEL_PORT: String(panelPort),
      SUB_PORT: String(subPort),
      PANEL_CORE_API_PORT: String(apiPort),
      PANEL_CORE_BIN: join(dir, 'no-core'),
      PANEL_LOG_LEVEL: 'error',
      PANEL_ADMIN_USERNAME: ADMIN.username,
      PANEL_ADMIN_PASSWORD: ADMIN.password,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const sockets: WebSocket[] = [];
  try {
    await waitForLine(child, /panel listening on/, 30_000);
    const base = `http://127.0.0.1:${panelPort}/`;
    const login = await fetch(`${base}login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    if (!(await login.json()).success) throw new Error('login failed');
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;

    ctx.log(`connecting ${CLIENTS} WebSocket clients`);
    /** status text → arrival times (ms) across the clients. */
    const arrivals = new Map<string, number[]>();
    let measuring = false;
    let dropped = 0;
    await Promise.all(
      Array.from(
        { length: CLIENTS },
        () =>
          new Promise<void>((resolve, reject) => {
            const ws = new WebSocket(`ws://127.0.0.1:${panelPort}/ws`, {
              headers: { cookie },
              origin: `http://127.0.0.1:${panelPort}`,
            });
            sockets.push(ws);
            ws.on('message', (data) => {
              if (!measuring) return;
              const now = performance.now();
              const text = data.toString();
              if (!text.startsWith('{"type":"status"')) return;
              let list = arrivals.get(text);
              if (!list) arrivals.set(text, (list = []));
              list.push(now);
            });
            ws.on('close', () => {
              if (measuring) dropped++;
            });
            ws.once('open', () => resolve());
            ws.once('error', reject);
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 3000)); // settle: connect-time work and the first pushes are done
    ctx.log(`idle for ${IDLE_S} s with ${CLIENTS} clients connected`);
    measuring = true;
    const cpu0 = cpuSeconds(child.pid!);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const cpu1 = cpuSeconds(child.pid!);
    const wall = (performance.now() - t0) / 1000;
    measuring = false;
    await new Promise((r) => setTimeout(r, 1500)); // let the last message reach everyone before judging completeness
    const complete = [...arrivals.values()].filter((l) => l.length === CLIENTS);
    const spreads = complete.map((l) => Math.max(...l) - Math.min(...l));
    const cpuPct = ((cpu1 - cpu0) / wall) * 100;
    ctx.log(
      `${arrivals.size} status messages seen, ${complete.length} reached all ${CLIENTS} clients; ${dropped} connections dropped`,
    );
    const rows: BenchRow[] = [
      {
        name: `status spread over ${CLIENTS} clients (median)`,
        db: '',
        value: spreads.length ? median(spreads) : NaN,
        unit: 'ms',
        target: '<= 1000 ms',
      },
      {
        name: `status spread over ${CLIENTS} clients (max)`,
        db: '',
        value: spreads.length ? Math.max(...spreads) : NaN,
        unit: 'ms',
        target: '<= 1000 ms',
      },
      {
        name: `status messages delivered to all ${CLIENTS} (${IDLE_S} s)`,
        db: '',
        value: complete.length,
        unit: 'msgs',
        target: `~${IDLE_S / 2}`,
      },
      {
        name: `panel CPU idle with ${CLIENTS} clients (${IDLE_S} s)`,
        db: '',
        value: cpuPct,
        unit: '% of a core',
        target: '< 10 %',
      },
    ];
    return rows;
  } finally {
    for (const ws of sockets) ws.terminate();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;
