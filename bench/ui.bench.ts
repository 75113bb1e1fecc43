// `npm run bench -- ui`: the browser UI at 100,000 clients on the built panel in headless Chromium — JS + CSS
// (brotli, what the browser downloads: the shell, the whole app), each page's first load (bytes over the wire, time
// to usable), navigation to the clients page's first rows, page change and search to new rows visible.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import type { Benchmark, BenchRow } from './types.js';
import { median } from './types.js';
import { freePorts, killAll, startPanel } from '../test/e2e/support/index.js';
import { CHROMIUM, loginUi } from '../test/e2e/ui/support.js';

const DIST = fileURLToPath(new URL('../dist/ui/', import.meta.url));
const N = 100_000;

/** Brotli bytes of an HTML entry's scripts and styles, following static imports between chunks. */
function entryBytes(html: string, dynamic = false): number {
  const seen = new Set<string>();
  const queue = [...html.matchAll(/(?:src|href)="\/__PANEL_BASE__\/assets\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  let total = 0;
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    total += statSync(join(DIST, 'assets', `${name}.br`)).size;
    if (name.endsWith('.js')) {
      const code = readFileSync(join(DIST, 'assets', name), 'utf8');
      for (const m of code.matchAll(/(?:from|import)\s*"\.\/([^"]+\.(?:js|css))"/g)) queue.push(m[1]!);
      if (dynamic) for (const m of code.matchAll(/import\(`\.\/([^`]+\.js)`\)/g)) queue.push(m[1]!);
    }
  }
  return total;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** Every app page, and what must be on it before a person can use it (besides its h1, nothing busy or "Loading…"). */
const PAGES: [string, string, string?][] = [
  ['overview', ''],
  ['inbounds', 'inbounds', 'table'],
  ['clients', 'clients', 'tbody input[type=checkbox]'],
  ['groups', 'groups'],
  ['nodes', 'nodes'],
  ['core-config', 'core-config', '.cc-editor:not([aria-busy])'],
  ['settings', 'settings'],
  ['logs', 'logs'],
];

/**
 * One page opened with an empty cache after login: the JS + CSS bytes it transferred (brotli) and the time from
 * navigation to usable (h1 shown, nothing busy or "Loading…", the page's own ready element present).
 */
async function firstLoad(page: Page, url: string, ready?: string): Promise<{ kB: number; ms: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const sizes: Promise<number>[] = [];
  const onResponse = (r: import('playwright-core').Response) => {
    const type = r.request().resourceType();
    if (type === 'script' || type === 'stylesheet')
      sizes.push(
        r
          .request()
          .sizes()
          .then((x) => x.responseBodySize),
      );
  };
  page.on('response', onResponse);
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(
    (sel) => {
      const main = document.querySelector('main');
      return (
        !!main?.querySelector('h1') &&
        !main.querySelector('[aria-busy="true"]') &&
        !main.textContent!.includes('Loading…') &&
        (!sel || !!document.querySelector(sel))
      );
    },
    ready ?? '',
    { polling: 'raf', timeout: 15_000 },
  );
  const ms = performance.now() - t0;
  await page.waitForLoadState('networkidle');
  page.off('response', onResponse);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
  await cdp.detach();
  const kB = (await Promise.all(sizes)).reduce((a, b) => a + b, 0) / 1024;
  return { kB, ms };
}

async function firstRow(page: Page): Promise<string> {
  return page.evaluate(() => document.querySelector('tbody input[type=checkbox]')?.getAttribute('aria-label') ?? '');
}

/** Time from `act` until the first row differs from `before` (polled every animation frame in the page). */
async function timeToNewRows(page: Page, act: () => Promise<void>): Promise<number> {
  const before = await firstRow(page);
  const t0 = performance.now();
  await act();
  await page.waitForFunction(
    (b) => {
      const el = document.querySelector('tbody input[type=checkbox]');
      return !!el && el.getAttribute('aria-label') !== b;
    },
    before,
    { polling: 'raf', timeout: 10_000 },
  );
  return performance.now() - t0;
}

const bench: Benchmark = async ({ log }) => {
  const rows: BenchRow[] = [];
  const login = readFileSync(join(DIST, 'login.html'), 'utf8');
  const app = readFileSync(join(DIST, 'app.html'), 'utf8');
  rows.push({
    name: 'login page JS + CSS (brotli)',
    db: '',
    value: entryBytes(login) / 1024,
    unit: 'kB',
    target: '<= 40 kB',
  });
  rows.push({
    name: 'app shell JS + CSS, before any page (brotli)',
    db: '',
    value: entryBytes(app) / 1024,
    unit: 'kB',
    target: '<= 120 kB',
  });
  rows.push({
    name: 'whole app, every page and the editor (brotli)',
    db: '',
    value: entryBytes(app, true) / 1024,
    unit: 'kB',
  });

  log(`seeding ${N.toLocaleString('en')} clients through bulkCreate on the built panel (libsql file)`);
  const panel = await startPanel({ coreBin: '/nonexistent/core' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  try {
    const [port] = await freePorts(1);
    const inbound = await panel.api('POST', '/panel/api/inbounds/add', {
      protocol: 'vless',
      port,
      remark: 'Bench',
      enable: true,
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'none' },
    });
    for (let start = 0; start < N; start += 10_000) {
      const batch = Array.from({ length: 10_000 }, (_, k) => ({
        client: {
          email: `u${String(start + k).padStart(6, '0')}@bench`,
          enable: true,
          totalGB: (start + k) % 2 ? 10 * 1024 ** 3 : 0,
        },
        inboundIds: [inbound.obj.id],
      }));
      const r = await panel.api('POST', '/panel/api/clients/bulkCreate', batch);
      if (!r.success) throw new Error(r.msg);
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await loginUi(page, panel, 'panel/');

    log('first load of every page (empty cache, 5 runs each)');
    for (const [name, path, ready] of PAGES) {
      const times: number[] = [];
      let kB = 0;
      for (let i = 0; i < 5; i++) {
        const r = await firstLoad(page, `${panel.url}panel/${path}`, ready);
        times.push(r.ms);
        kB = r.kB;
      }
      rows.push({ name: `${name} first load JS + CSS (brotli)`, db: '', value: kB, unit: 'kB', target: '<= 120 kB' });
      rows.push({
        name: `${name} navigation -> usable, empty cache @100k (median of 5)`,
        db: 'libsql',
        value: median(times),
        unit: 'ms',
        target: '<= 1000 ms',
      });
    }

    log('navigation to the first rows of the clients page (warm cache, 7 runs)');
    const nav: number[] = [];
    for (let i = 0; i < 7; i++) {
      await page.goto(`${panel.url}panel/`);
      const t0 = performance.now();
      await page.goto(`${panel.url}panel/clients`, { waitUntil: 'commit' });
      await page.waitForSelector('tbody input[type=checkbox]', { timeout: 10_000 });
      nav.push(performance.now() - t0);
    }
    rows.push({
      name: 'navigation -> clients first rows @100k (median of 7)',
      db: 'libsql',
      value: median(nav),
      unit: 'ms',
      target: '<= 1000 ms',
    });

    log('page changes (Next/Previous, 30 runs)');
    const paging: number[] = [];
    for (let i = 0; i < 30; i++) {
      const name = i % 2 ? 'Previous' : 'Next';
      paging.push(await timeToNewRows(page, () => page.getByRole('button', { name, exact: true }).click()));
    }
    rows.push({
      name: 'page change -> new rows @100k p50',
      db: 'libsql',
      value: pct(paging, 0.5),
      unit: 'ms',
      target: '<= 200 ms',
    });
    rows.push({
      name: 'page change -> new rows @100k p95',
      db: 'libsql',
      value: pct(paging, 0.95),
      unit: 'ms',
      target: '<= 400 ms',
    });

    log('searches (30 runs, typed text to new rows, 120 ms input debounce included)');
    const search: number[] = [];
    const box = page.getByRole('searchbox', { name: 'Search' });
    for (let i = 0; i < 30; i++) {
      const term = `u0${String(1000 + i * 997).padStart(4, '0')}`;
      search.push(await timeToNewRows(page, () => box.fill(term)));
    }
    rows.push({
      name: 'search -> new rows @100k p50',
      db: 'libsql',
      value: pct(search, 0.5),
      unit: 'ms',
      target: '<= 200 ms',
    });
    rows.push({
      name: 'search -> new rows @100k p95',
      db: 'libsql',
      value: pct(search, 0.95),
      unit: 'ms',
      target: '<= 400 ms',
    });
    await context.close();
  } finally {
    await browser.close();
    await killAll();
  }
  return rows;
};

export default bench;
