// `npm run bench -- ui-soak`: the clients page left open for BENCH_UI_SOAK_MIN minutes (default 10) at 100,000 clients
// while real traffic flows through the core (a v2ray client downloading through a vmess inbound every few seconds),
// so the page receives `traffic` and `client_stats` messages each tick. Reports the page's JS heap growth (after a
// forced GC, start vs end) and the page's CPU (main-thread task time over wall time, from the DevTools protocol).
// Needs the real core (PANEL_TEST_CORE_BIN, default the v2ray on PATH) and Debian's chromium.
import { chromium } from 'playwright-core';
import type { Benchmark, BenchRow } from './types.js';
import {
  addClient,
  addInbound,
  curlSocks,
  killAll,
  startPanel,
  startTarget,
  testCoreBin,
  v2rayClient,
  vmessOutbound,
} from '../test/e2e/support/index.js';
import { CHROMIUM, loginUi } from '../test/e2e/ui/support.js';

const N = 100_000;
const MINUTES = Number(process.env.BENCH_UI_SOAK_MIN ?? 10);

const bench: Benchmark = async ({ log }) => {
  const bin = testCoreBin();
  if (!bin) {
    log('no core binary (PANEL_TEST_CORE_BIN or v2ray on PATH): ui-soak skipped');
    return [];
  }
  const rows: BenchRow[] = [];
  const target = await startTarget();
  const panel = await startPanel({ coreBin: bin, env: { PANEL_TRAFFIC_INTERVAL_MS: '2000' } });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  try {
    const ib = await addInbound(panel, { protocol: 'vmess', remark: 'Soak' });
    // The movers come first in email order, so they are on the page the browser shows.
    const movers = await Promise.all([0, 1, 2].map((i) => addClient(panel, `a-mover-${i}@soak`, ib.id)));
    // The 100,000 others sit on a disabled inbound: they are in the list the page pages through, but not in the
    // core (adding 100,000 users live to Debian's v2ray 4.34 outlasts the gRPC deadline and the core's start wait).
    const bulk = await panel.api('POST', '/panel/api/inbounds/add', {
      protocol: 'vmess',
      port: ib.port + 1,
      remark: 'Soak bulk',
      enable: false,
      settings: {},
      streamSettings: { network: 'tcp' },
    });
    if (!bulk.success) throw new Error(bulk.msg);
    log(`seeding ${N.toLocaleString('en')} clients`);
    for (let start = 0; start < N; start += 10_000) {
      const batch = Array.from({ length: 10_000 }, (_, k) => ({
        client: { email: `u${String(start + k).padStart(6, '0')}@soak` },
        inboundIds: [bulk.obj.id],
      }));
      const r = await panel.api('POST', '/panel/api/clients/bulkCreate', batch);
      if (!r.success) throw new Error(r.msg);
    }
    const proxies = await Promise.all(movers.map((m) => v2rayClient(bin, vmessOutbound(ib.port, m.uuid))));

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on('crash', () => log('the page crashed'));
    page.on('pageerror', (e) => log(`page error: ${e.message}`));
    page.on('close', () => log('the page closed'));
    browser.on('disconnected', () => log('the browser disconnected'));
    let messages = 0;
    const byType: Record<string, number> = {};
    page.on('websocket', (ws) =>
      ws.on('framereceived', (f) => {
        messages++;
        const type = /"type":"(\w+)"/.exec(String(f.payload))?.[1] ?? '?';
        byType[type] = (byType[type] ?? 0) + 1;
      }),
    );
    await loginUi(page, panel, 'panel/clients?sort=email');
    await page.waitForSelector('tbody input[type=checkbox]', { timeout: 20_000 });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async () => {
      const { metrics: m } = (await cdp.send('Performance.getMetrics')) as {
        metrics: { name: string; value: number }[];
      };
      return Object.fromEntries(m.map((x) => [x.name, x.value])) as Record<string, number>;
    };
    const heapAfterGc = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await metrics()).JSHeapUsedSize!;
    };

    // Traffic: each mover downloads 256 KB every 3 s, round robin, for the whole soak.
    let stop = false;
    const traffic = (async () => {
      for (let i = 0; !stop; i++) {
        await curlSocks(proxies[i % proxies.length]!.socksPort, target.url('/bytes/262144'), 10).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 3000));
      }
    })();

    await new Promise((r) => setTimeout(r, 30_000)); // warm-up: first ticks, caches, JIT
    const heap0 = await heapAfterGc();
    const m0 = await metrics();
    const wall0 = performance.now();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    log(`soaking for ${MINUTES} min with live traffic messages`);
    for (let minute = 1; minute <= MINUTES; minute++) {
      await new Promise((r) => setTimeout(r, 60_000));
      const h = (await metrics()).JSHeapUsedSize!;
      log(`  minute ${minute}: heap ${(h / 1e6).toFixed(1)} MB, ${messages} WebSocket messages so far`);
    }
    const m1 = await metrics();
    const wall = (performance.now() - wall0) / 1000;
    const heap1 = await heapAfterGc();
    stop = true;
    await traffic;
    const cpu = ((m1.TaskDuration! - m0.TaskDuration!) / wall) * 100;
    const api = requests.filter((u) => u.includes('/panel/api/')).length;
    log(
      `heap after GC ${(heap0 / 1e6).toFixed(2)} → ${(heap1 / 1e6).toFixed(2)} MB; ${messages} messages ${JSON.stringify(byType)}; ${api} API requests`,
    );
    rows.push(
      {
        name: `clients page @100k, ${MINUTES} min of live traffic: JS heap growth (after GC)`,
        db: 'libsql',
        value: ((heap1 - heap0) / heap0) * 100,
        unit: '%',
        target: '< 20 %',
      },
      {
        name: `clients page @100k, ${MINUTES} min of live traffic: page CPU (main-thread tasks / wall time)`,
        db: 'libsql',
        value: cpu,
        unit: '% of a core',
        target: '< 5 %',
      },
      {
        name: `clients page @100k, ${MINUTES} min: WebSocket messages received / API requests made`,
        db: 'libsql',
        value: messages,
        unit: `messages / ${api} requests`,
      },
    );
    await context.close();
  } finally {
    await browser.close();
    await target.close();
    await killAll();
  }
  return rows;
};

export default bench;
