// The UI in its four languages, in real Chromium: journey (8) of part 2 (switch to Persian: right to left,
// translated navigation, Persian calendar dates; back to English), the language following the browser, every
// page's heading translated, and axe-core on every page in every language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePorts, killAll, startPanel, type Panel } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

const missing = browserMissing('UI languages');
const PAGES = ['', 'inbounds', 'clients', 'groups', 'nodes', 'core-config', 'settings', 'logs'];
const NAV_EN = ['Overview', 'Inbounds', 'Clients', 'Groups', 'Nodes', 'Core', 'Settings', 'Logs'];
const NAV_FA = ['نمای کلی', 'ورودی‌ها', 'کاربران', 'گروه‌ها', 'نودها', 'هسته', 'تنظیمات', 'گزارش‌ها'];
const LANG_NAMES = { en: 'English', ru: 'Русский', fa: 'فارسی', zh: '简体中文' } as const;
/** Persian digits and a year of the Solar Hijri calendar (1400s), never a Gregorian 20xx year. */
const PERSIAN_DATE = /[۰-۹]/;

const picker = (page: Page) => page.getByRole('combobox', { name: 'Language' });
const navNames = (page: Page) => page.getByRole('navigation').first().getByRole('link').allTextContents();

describe.skipIf(missing)('browser UI in four languages', () => {
  let panel: Panel;
  let browser: Browser;

  beforeAll(async () => {
    panel = await startPanel({ coreBin: '/nonexistent/core' });
    const [port] = await freePorts(1);
    const ib = await panel.api('POST', '/panel/api/inbounds/add', {
      protocol: 'vless',
      port,
      remark: 'Lang test',
      enable: true,
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'none' },
    });
    const expiry = Date.UTC(2027, 2, 21, 12); // 1 Farvardin 1406 in the Persian calendar
    const add = await panel.api('POST', '/panel/api/clients/add', {
      client: { email: 'dated@example.com', enable: true, expiryTime: expiry, totalGB: 0 },
      inboundIds: [ib.obj.id],
    });
    expect(add.success, add.msg).toBe(true);
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  it('journey 8: Persian is right to left with translated navigation and Persian calendar dates; back to English', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/clients');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Clients');
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('ltr');
    await picker(page).selectOption({ label: LANG_NAMES.fa });
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('fa');
    expect(await navNames(page)).toEqual(NAV_FA);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('کاربران');
    // The expiry's full date (on hover) is in the Persian calendar: 1 Farvardin 1406.
    const expiry = page.locator('time').first();
    await expect.poll(() => expiry.getAttribute('title')).toMatch(PERSIAN_DATE);
    const full = (await expiry.getAttribute('title'))!;
    expect(full).toContain('۱۴۰۶');
    expect(full).toContain('فروردین');
    // Numbers are Persian digits too (the page counter).
    expect(await page.getByRole('navigation', { name: 'صفحه‌ها' }).textContent()).toMatch(/[۰-۹]/);
    await page.screenshot({ path: shotPath('clients-fa-desktop'), fullPage: true });
    // The choice is kept in this browser: a reload stays Persian.
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('کاربران');
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await picker(page).selectOption({ label: LANG_NAMES.en });
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('ltr');
    expect(await navNames(page)).toEqual(NAV_EN);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Clients');
    expect(await page.locator('time').first().getAttribute('title')).toContain('2027');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the overview charts label their time axis in the language', async () => {
    const { context, page } = await openPage(browser);
    await loginUi(page, panel);
    await picker(page).selectOption({ label: LANG_NAMES.fa });
    const legend = page.locator('.u-legend').first();
    await legend.waitFor();
    expect(await legend.textContent()).toContain('زمان');
    expect(await legend.textContent()).not.toContain('Time');
    await context.close();
  });

  it('follows the browser language until one is chosen, on the login page too', async () => {
    const { context, page } = await openPage(browser, { ...DESKTOP, locale: 'ru-RU' });
    await page.goto(panel.url);
    await expect.poll(() => page.getByRole('button', { name: 'Войти' }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ru');
    await page.getByRole('textbox', { name: 'Имя пользователя' }).fill('admin');
    await context.close();
  });

  // English first: the other languages compare their headings with it.
  const headings: Record<string, string[]> = {};
  for (const [code, label] of Object.entries(LANG_NAMES)) {
    it(`every page in ${label}: heading and navigation translated, no serious axe violation`, async () => {
      const { context, page, errors } = await openPage(browser);
      await loginUi(page, panel);
      await picker(page).selectOption({ label });
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(code);
      headings[code] = [];
      for (const p of PAGES) {
        await page.goto(`${panel.url}panel/${p}`);
        const h1 = page.getByRole('heading', { level: 1 });
        await h1.waitFor();
        await page.waitForTimeout(300); // the page's first data
        headings[code]!.push((await h1.textContent())!);
        expect(await axeProblems(page), `${p || 'overview'} in ${code}`).toEqual([]);
      }
      if (code !== 'en') {
        const nav = await navNames(page);
        nav.forEach((name, i) => expect(name, `${code} navigation`).not.toBe(NAV_EN[i]));
      }
      if (code !== 'en')
        headings[code]!.forEach((h, i) => expect(h, `${PAGES[i]} in ${code}`).not.toBe(headings.en![i]));
      expect(errors, code).toEqual([]);
      await context.close();
    }, 90_000);
  }

  it('Persian on a phone in the dark: every page stays inside the screen and passes axe', async () => {
    const { context, page } = await openPage(browser, { ...PHONE, colorScheme: 'dark' });
    await loginUi(page, panel);
    await picker(page).selectOption({ label: LANG_NAMES.fa });
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    for (const p of PAGES) {
      await page.goto(`${panel.url}panel/${p}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), p).toBeLessThanOrEqual(390);
      expect(await axeProblems(page), `${p || 'overview'} fa dark phone`).toEqual([]);
    }
    await page.screenshot({ path: shotPath('overview-fa-dark-phone'), fullPage: true });
    await context.close();
  });
});
