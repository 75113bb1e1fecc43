// The clients page at 100,000 clients in real Chromium (journeys 5 and 6): search, status filter, sort, paging
// and page size live in the URL; bulk-adjusting 50 selected clients shows the counts and every skipped client;
// a second session's changes refresh the list at most twice per burst, nothing is fetched while the tab is
// hidden and nothing is polled. Seeded once for the file through bulkCreate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePorts, killAll, startPanel, type Panel } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, shotPath } from './support.js';

const missing = browserMissing('clients at 100k');
const N = 100_000;
const GB = 1024 ** 3;
const DAY = 86_400_000;
const email = (i: number) => `c${String(i).padStart(6, '0')}@bulk.test`;

const listRequests = (urls: string[]) => urls.filter((u) => u.includes('/panel/api/clients/list/paged')).length;

async function rowsShown(page: Page): Promise<string[]> {
  return page
    .getByRole('checkbox', { name: /^Select c\d{6}@bulk\.test$/ })
    .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')!.slice('Select '.length)));
}

describe.skipIf(missing)('clients page at 100,000 clients', () => {
  let panel: Panel;
  let browser: Browser;
  const now = Date.now();

  beforeAll(async () => {
    panel = await startPanel({ coreBin: '/nonexistent/core' });
    const [port] = await freePorts(1);
    const inbound = await panel.api('POST', '/panel/api/inbounds/add', {
      protocol: 'vless',
      port,
      remark: 'Bulk',
      enable: true,
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'none' },
    });
    if (!inbound.success) throw new Error(inbound.msg);
    for (let start = 0; start < N; start += 10_000) {
      const batch = [];
      for (let i = start; i < start + 10_000; i++) {
        batch.push({
          client: {
            email: email(i),
            enable: i % 10 !== 7,
            totalGB: i % 4 === 0 ? 0 : (1 + (i % 50)) * GB,
            expiryTime: i % 3 === 0 ? 0 : now + ((i % 90) + 1) * DAY,
          },
          inboundIds: [inbound.obj.id],
        });
      }
      const r = await panel.api('POST', '/panel/api/clients/bulkCreate', batch);
      if (!r.success || r.obj.created !== 10_000)
        throw new Error(`bulkCreate: ${r.msg} ${JSON.stringify(r.obj?.skipped?.slice(0, 3))}`);
    }
    browser = await launch();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  it('journey 5: search, filter, sort, page and page size in the URL; bulk-adjust 50 selected clients and read the result', async () => {
    const { context, page, errors } = await openPage(browser, DESKTOP);
    await loginUi(page, panel, 'panel/clients');
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect.poll(() => pager.textContent(), { timeout: 10_000 }).toContain('100,000 of 100,000 clients');
    expect((await rowsShown(page)).length).toBe(25);
    for (const h of ['Email', 'Status', 'Traffic', 'Expiry'])
      expect(await page.getByRole('columnheader', { name: h }).count(), h).toBe(1);
    expect(await page.getByRole('button', { name: /^All 100,000$/ }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^Disabled 10,000$/ }).count()).toBe(1);
    await page.screenshot({ path: shotPath('clients-100k-desktop') });
    expect(await axeProblems(page)).toEqual([]);

    // Search.
    await page.getByRole('searchbox', { name: 'Search' }).fill('c01234');
    await page.waitForURL(/search=c01234/);
    await expect.poll(() => rowsShown(page)).toEqual(Array.from({ length: 10 }, (_, k) => email(12340 + k)));
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.waitForURL((u) => !u.searchParams.has('search'));

    // Status filter from the summary chips.
    await page.getByRole('button', { name: /^Disabled / }).click();
    await page.waitForURL(/filter=deactive/);
    await expect.poll(() => pager.textContent()).toContain('10,000 of 100,000 clients');
    expect(await page.getByRole('button', { name: /^Disabled / }).getAttribute('aria-pressed')).toBe('true');
    expect(
      new Set(
        await page
          .getByRole('cell')
          .filter({ hasText: /^(Active|Online|Disabled|Depleted|Expired)$/ })
          .allTextContents(),
      ),
    ).toEqual(new Set(['Disabled']));

    // Sort by email, descending.
    await page.getByRole('columnheader', { name: 'Email' }).getByRole('button').click();
    await page.waitForURL(/sort=email&order=ascend/);
    await expect.poll(async () => (await rowsShown(page))[0]).toBe(email(7));
    await page.getByRole('columnheader', { name: 'Email' }).getByRole('button').click();
    await page.waitForURL(/order=descend/);
    await expect.poll(async () => (await rowsShown(page))[0]).toBe(email(99_997));

    // Paging and page size.
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/page=2/);
    await expect.poll(() => pager.textContent()).toContain('Page 2 of 400');
    await expect.poll(async () => (await rowsShown(page))[0]).toBe(email(99_997 - 25 * 10));
    await page.getByRole('combobox', { name: 'Page size' }).selectOption('50');
    await page.waitForURL((u) => u.searchParams.get('pageSize') === '50' && !u.searchParams.has('page'));
    await expect.poll(async () => (await rowsShown(page)).length).toBe(50);

    // The URL is the state: a reload shows the same rows.
    const before = await rowsShown(page);
    await page.reload();
    await expect.poll(() => rowsShown(page)).toEqual(before);
    expect(await page.getByRole('button', { name: /^Disabled / }).getAttribute('aria-pressed')).toBe('true');

    // Bulk adjust: the first 50 clients by email; those without an expiry are skipped with a reason.
    await page.goto(`${panel.url}panel/clients?sort=email&order=ascend&pageSize=50`);
    await expect.poll(async () => (await rowsShown(page))[49]).toBe(email(49));
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await page.getByRole('button', { name: /^Bulk actions/ }).click();
    await page.getByRole('menuitem', { name: 'Adjust' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adjust' });
    await dialog.getByRole('spinbutton', { name: 'Days' }).fill('7');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    const result = page.getByRole('status', { name: 'Bulk result' });
    const skipped = Array.from({ length: 50 }, (_, i) => i).filter((i) => i % 3 === 0);
    await expect
      .poll(() => result.textContent(), { timeout: 10_000 })
      .toContain(`Adjusted ${50 - skipped.length} of 50 clients; skipped ${skipped.length}`);
    const items = await result.getByRole('listitem').allTextContents();
    expect(items.map((t) => t.split(':')[0])).toEqual(skipped.map(email));
    for (const t of items) expect(t.length).toBeGreaterThan(email(0).length + 3); // each with its reason
    await page.screenshot({ path: shotPath('clients-bulk-desktop') });
    expect(await axeProblems(page)).toEqual([]);
    const c1 = (await panel.api('GET', `/panel/api/clients/get/${encodeURIComponent(email(1))}`)).obj;
    expect((c1.client ?? c1).expiryTime).toBe(now + 2 * DAY + 7 * DAY);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('journey 6: another session adds and deletes clients; the list refreshes at most twice per burst, never polls, and waits while hidden', async () => {
    const { context, page, requests } = await openPage(browser, DESKTOP);
    await loginUi(page, panel, 'panel/clients');
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect.poll(() => pager.textContent(), { timeout: 10_000 }).toContain('of 100,000 clients');
    await page.waitForTimeout(1000);

    // Quiet: status messages arrive every 2 s, the list is not fetched again.
    let mark = listRequests(requests);
    await page.waitForTimeout(5000);
    expect(listRequests(requests) - mark).toBe(0);

    const inboundId = (await panel.api('GET', '/panel/api/inbounds/options')).obj[0].id;
    const burst = async (kind: 'add' | 'del') => {
      for (let k = 0; k < 10; k++) {
        const e = `burst-${k}@live.test`;
        const r =
          kind === 'add'
            ? await panel.api('POST', '/panel/api/clients/add', {
                client: { email: e, enable: true },
                inboundIds: [inboundId],
              })
            : await panel.api('POST', `/panel/api/clients/del/${encodeURIComponent(e)}`);
        expect(r.success, r.msg).toBe(true);
      }
    };

    mark = listRequests(requests);
    await burst('add');
    await expect.poll(() => pager.textContent(), { timeout: 10_000 }).toContain('of 100,010 clients');
    await page.waitForTimeout(2500);
    const afterAdd = listRequests(requests) - mark;
    expect(afterAdd).toBeGreaterThanOrEqual(1);
    expect(afterAdd).toBeLessThanOrEqual(2);

    // Hidden: nothing is fetched; one refetch when the tab is visible again.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    mark = listRequests(requests);
    await burst('del');
    await page.waitForTimeout(2500);
    expect(listRequests(requests) - mark).toBe(0);
    expect(await pager.textContent()).toContain('of 100,010 clients');
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect.poll(() => pager.textContent(), { timeout: 10_000 }).toContain('of 100,000 clients');
    await page.waitForTimeout(1000);
    expect(listRequests(requests) - mark).toBe(1);
    await context.close();
  });
});
