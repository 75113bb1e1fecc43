// Browser harness for the UI suites: Debian's chromium through playwright-core (one browser per file), the
// built panel (test/e2e/support startPanel), login through the page by role and accessible name.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ADMIN, type Panel } from '../support/index.js';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** True when the browser suites must be skipped (never under CI=true: there a missing chromium fails the run). */
export function browserMissing(suite: string): boolean {
  const missing = !existsSync(CHROMIUM);
  if (missing && process.env.CI === 'true')
    throw new Error(`CI=true but ${CHROMIUM} is missing: the ${suite} suite cannot be skipped`);
  if (missing) console.log(`${CHROMIUM} is missing: skipping the ${suite} browser suite`);
  return missing;
}

export const launch = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });

export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
export const DESKTOP = { viewport: { width: 1280, height: 860 } };

/** A fresh context whose page records every request URL and every console error / page error. */
export async function openPage(
  browser: Browser,
  opts: Parameters<Browser['newContext']>[0] = DESKTOP,
): Promise<{ context: BrowserContext; page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext(opts);
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, requests, errors };
}

/** Logs in through the login page (by role and name) and waits for the app. */
export async function loginUi(page: Page, panel: Panel, target: string | null = ''): Promise<void> {
  if (target !== null) await page.goto(panel.url + target);
  await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((u) => u.pathname.startsWith(new URL(panel.url).pathname + 'panel/'));
}

/** Screenshots go to a temp folder during tests (docs/screenshots is written by `npm run screenshots`). */
export function shotPath(name: string): string {
  const dir = process.env.PANEL_UI_SHOTS ?? '/tmp/panel-ui-shots';
  mkdirSync(dir, { recursive: true });
  return `${dir}/${name}.png`;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now (injected through the debugger, so the CSP stays
 * on).
 */
export async function axeProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  })) as { id: string; impact: string; nodes: string[] }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.join(', ')}`);
}
