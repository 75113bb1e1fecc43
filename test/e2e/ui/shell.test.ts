// The browser UI's serving, login and shell in real Chromium, on the built panel under a non-root base path:
// journey (1) (2FA), journey (8) (own origin only, CSP), every page URL reloadable, an expired session back to
// the login page with the page remembered. Driven by role and accessible name (../shared/UI.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { generate } from 'otplib';
import { killAll, startPanel, type Panel } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

const missing = browserMissing('UI shell');
const BASE = '/ui-e2e/';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const PAGES: [string, string][] = [
  ['', 'Overview'],
  ['inbounds', 'Inbounds'],
  ['clients', 'Clients'],
  ['groups', 'Groups'],
  ['nodes', 'Nodes'],
  ['core-config', 'Core'],
  ['settings', 'Settings'],
  ['logs', 'Logs'],
];

describe.skipIf(missing)('browser UI: serving, login, shell', () => {
  let panel: Panel;
  let browser: Browser;

  beforeAll(async () => {
    // No core: these journeys do not need one (the panel reports the core as stopped).
    panel = await startPanel({ coreBin: '/nonexistent/core', env: { PANEL_BASE_PATH: BASE } });
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  it('serves the login page, the app behind the session and hashed precompressed assets, with a CSP', async () => {
    const root = new URL(panel.url);
    const res = await fetch(panel.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).toContain(`<meta name="panel-base" content="${BASE}">`);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const asset = /src="([^"]+\.js)"/.exec(html)![1]!;
    expect(asset.startsWith(`${BASE}assets/`)).toBe(true);
    const a = await fetch(new URL(asset, root), { headers: { 'accept-encoding': 'br' } });
    expect(a.status).toBe(200);
    expect(a.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(a.headers.get('content-encoding')).toBe('br');
    const g = await fetch(new URL(asset, root), { headers: { 'accept-encoding': 'gzip' } });
    expect(g.headers.get('content-encoding')).toBe('gzip');

    for (const [p] of PAGES) {
      const r = await fetch(`${panel.url}panel/${p}?x=1`, { redirect: 'manual' });
      expect(r.status, p).toBe(302);
      expect(r.headers.get('location')).toBe(`${BASE}?next=${encodeURIComponent(`panel/${p}?x=1`)}`);
    }
    // API paths are not pages: without a session they still answer as the API does.
    expect((await fetch(`${panel.url}panel/api/inbounds/list`, { redirect: 'manual' })).status).toBe(404);
  });

  it('journey 1: log in, 2FA turned on in the API, log out, wrong then right TOTP code', async () => {
    const { context, page, errors } = await openPage(browser);
    await page.goto(panel.url);
    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Two-factor code' }).count()).toBe(0);
    // A wrong password: the message is shown in role=alert.
    await page.getByRole('textbox', { name: 'Username' }).fill('e2e-admin');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('wrong username or password');

    await loginUi(page, panel);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');

    const on = await panel.api('POST', '/panel/setting/update', { twoFactorEnable: true, twoFactorToken: TOTP_SECRET });
    expect(on.success, on.msg).toBe(true);
    try {
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(panel.url);
      const code = page.getByRole('textbox', { name: 'Two-factor code' });
      await expect.poll(() => code.isVisible()).toBe(true);
      await page.getByRole('textbox', { name: 'Username' }).fill('e2e-admin');
      await page.getByLabel('Password').fill('e2e-password-123');
      const right = await generate({ secret: TOTP_SECRET });
      await code.fill(right === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('wrong username or password');
      expect(new URL(page.url()).pathname).toBe(BASE);
      await code.fill(await generate({ secret: TOTP_SECRET }));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${panel.url}panel/`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    } finally {
      await panel.api('POST', '/panel/setting/update', { twoFactorEnable: false, twoFactorToken: '' });
    }
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });

  it('journey 8 and the shell: every page reloads to itself with navigation "Main" and one h1; all requests stay on the origin', async () => {
    for (const opts of [DESKTOP, PHONE]) {
      const { context, page, requests, errors } = await openPage(browser, opts);
      await loginUi(page, panel);
      const nav = page.getByRole('navigation', { name: 'Main' });
      for (const [p, name] of PAGES) {
        expect(await nav.getByRole('link', { name, exact: true }).count(), name).toBe(1);
        const res = await page.goto(`${panel.url}panel/${p}`);
        expect(res?.status()).toBe(200);
        expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
        await expect.poll(() => page.getByRole('heading', { level: 1 }).allTextContents()).toEqual([name]);
        expect(await page.getByRole('button', { name: 'Log out' }).count()).toBe(1);
        expect(await page.getByRole('combobox', { name: 'Language' }).count()).toBe(1);
      }
      // Client-side navigation through the links changes the URL and the page.
      await nav.getByRole('link', { name: 'Clients' }).click();
      await page.waitForURL(`${panel.url}panel/clients`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Clients');
      await nav.getByRole('link', { name: 'Overview' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
      if (opts === PHONE) {
        await page.screenshot({ path: shotPath('overview-phone'), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await page.screenshot({ path: shotPath('overview-phone'), fullPage: true });
      } else {
        await page.screenshot({ path: shotPath('overview-desktop'), fullPage: true });
      }
      const origin = new URL(panel.url).origin;
      expect(requests.length).toBeGreaterThan(10);
      for (const url of requests)
        expect(url.startsWith(`${origin}/`) || url.startsWith(`ws://${new URL(origin).host}/`), url).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('the overview draws every history chart and refetches them for another bucket', async () => {
    const { context, page, requests, errors } = await openPage(browser);
    await loginUi(page, panel);
    const charts = page.getByRole('img', { name: / history chart \(\d+ points\)$/ });
    await expect.poll(() => charts.count(), { timeout: 10_000 }).toBe(5);
    for (const h of ['CPU', 'Memory', 'Disk', 'Network'])
      expect(await page.getByRole('heading', { name: h, exact: true }).count(), h).toBe(1);
    expect(await page.locator('canvas').count()).toBe(5);
    // Uptimes, totals and UDP sockets from the status snapshot; the core metrics card says why it has none here.
    const panelCard = page.getByRole('region', { name: 'Panel', exact: true });
    await expect.poll(() => panelCard.textContent()).toMatch(/Panel uptime: .*System uptime: \d/);
    expect(await page.getByRole('region', { name: 'Network', exact: true }).textContent()).toMatch(
      /Total ↑ .* UDP: \d/,
    );
    const coreMetrics = page.getByRole('region', { name: 'Core metrics' });
    await expect.poll(() => coreMetrics.textContent()).toMatch(/Not available/);
    expect(requests.filter((u) => /\/panel\/api\/server\/history\/\w+\/30$/.test(u)).length).toBe(8);
    await page.getByRole('combobox', { name: 'Bucket' }).selectOption('60');
    await expect.poll(() => requests.filter((u) => /\/panel\/api\/server\/history\/\w+\/60$/.test(u)).length).toBe(8);
    await page.screenshot({ path: shotPath('overview-charts-desktop'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("groups: create, rename, open its clients, delete; a duplicate name shows the panel's message", async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/groups');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Groups');
    await page.getByRole('button', { name: 'Create group' }).click();
    const create = page.getByRole('dialog', { name: 'Create group' });
    await create.getByRole('textbox', { name: 'Name' }).fill('team-x');
    await create.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Clients of team-x' }).count()).toBe(1);
    // The same name again: the dialog shows why.
    await page.getByRole('button', { name: 'Create group' }).click();
    await create.getByRole('textbox', { name: 'Name' }).fill('team-x');
    await create.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => create.getByRole('alert').textContent()).toMatch(/exists/);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Rename team-x' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename group' });
    await rename.getByRole('textbox', { name: 'New name' }).fill('team-y');
    await rename.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Clients of team-y' }).count()).toBe(1);
    expect((await panel.api('GET', '/panel/api/clients/groups')).obj).toEqual([{ name: 'team-y', clientCount: 0 }]);
    expect(await axeProblems(page)).toEqual([]);

    await page.getByRole('link', { name: 'Clients of team-y' }).click();
    await page.waitForURL(`${panel.url}panel/clients?group=team-y`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Clients');
    await page.goBack();
    await page.getByRole('button', { name: 'Delete team-y' }).click();
    const del = page.getByRole('dialog', { name: 'Delete group' });
    await del.waitFor();
    // A destructive primary button keeps its contrast (it once drew danger-red text on the accent blue).
    expect(await axeProblems(page)).toEqual([]);
    await del.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByText('No groups yet.').count()).toBe(1);
    expect((await panel.api('GET', '/panel/api/clients/groups')).obj).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('axe-core finds no serious or critical violation on the login page and any app page, light and dark, desktop and phone', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const opts of [DESKTOP, PHONE]) {
        const { context, page } = await openPage(browser, { ...opts, colorScheme });
        await page.goto(panel.url);
        await page.getByRole('button', { name: 'Log in' }).waitFor();
        expect(await axeProblems(page), `login ${colorScheme}`).toEqual([]);
        await loginUi(page, panel, null);
        for (const [p, name] of PAGES) {
          await page.goto(`${panel.url}panel/${p}`);
          await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
          await page.waitForTimeout(300);
          expect(await axeProblems(page), `${name} ${colorScheme} ${opts.viewport.width}`).toEqual([]);
        }
        await context.close();
      }
    }
  }, 180_000);

  it('an expired session sends the user to the login page and back to the page they were on', async () => {
    const { context, page } = await openPage(browser);
    await loginUi(page, panel);
    await page.goto(`${panel.url}panel/clients?search=abc&pageSize=50`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Clients');
    // The page's own first reads must be done first: one still to go would meet the 401 and name this page.
    await page.waitForLoadState('networkidle');
    // The session ends (cookie gone); the next API call the page makes answers 401.
    await context.clearCookies();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbounds' }).click();
    await page.waitForURL((u) => u.pathname === BASE && u.searchParams.get('next') === 'panel/inbounds');
    await page.getByRole('textbox', { name: 'Username' }).fill('e2e-admin');
    await page.getByLabel('Password').fill('e2e-password-123');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${panel.url}panel/inbounds`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbounds');

    // A reload without a session: the server's redirect keeps the query too.
    await context.clearCookies();
    await page.goto(`${panel.url}panel/clients?search=abc&pageSize=50`);
    await page.waitForURL((u) => u.pathname === BASE);
    await loginUi(page, panel, null);
    expect(page.url()).toBe(`${panel.url}panel/clients?search=abc&pageSize=50`);
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('abc');
    await context.close();
  });
});
