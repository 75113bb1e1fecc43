// The Logs page and the Overview's backup card in real Chromium on the built panel: the panel log (the login's
// own lines, the level filter), the core log's class and keyword filters, Download equal to the shown lines,
// Follow reading again only while on and visible, and journey (7): download a backup in the page, add a
// client, restore the backup in the page, the panel comes back without the client. axe-core on both tabs and
// the restore dialog, light and dark, desktop and phone.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addClient, addInbound, killAll, startPanel, testCoreBin, type Panel, ADMIN } from '../support/index.js';
import { testDatabases } from '../../support/databases.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

const missing = browserMissing('UI logs and backup');
// The core is not needed to read its log files; with the test core the restore also restarts a real one.
const bin = testCoreBin();
const dbs = testDatabases();

const ACCESS = [
  '2026/05/01 10:00:01 from 127.0.0.1:40001 accepted tcp:direct.example:443 [in-1 -> direct] email: a@logs.test',
  '2026/05/01 10:00:02 from 127.0.0.1:40002 accepted tcp:blocked.example:443 [in-1 -> blocked] email: b@logs.test',
  '2026/05/01 10:00:03 from 127.0.0.1:40003 accepted tcp:proxy.example:443 [in-1 -> out-far] email: c@logs.test',
];
const ERRORS = ['2026/05/01 10:00:04 [Warning] core: the far outbound is slow'];

const log = (page: Page) => page.getByRole('log', { name: 'Log lines' });
const logText = async (page: Page) => (await log(page).textContent()) ?? '';
const logRequests = (requests: string[], kind: 'logs' | 'corelogs') =>
  requests.filter((u) => u.includes(`/panel/api/server/${kind}/`)).length;

/** A failed login through the API: the panel logs it at warn level. */
async function failedLogin(panel: Panel): Promise<void> {
  await fetch(new URL('login', panel.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.username, password: 'not-the-password' }),
  });
}

/**
 * Journey (7) in the page: download a backup (the browser's download event), add a client through the API,
 * restore the downloaded file in the page with the confirmation, wait for the restarted panel, the client is gone.
 */
async function restoreJourney(browser: Browser, panel: Panel): Promise<void> {
  const inbound = await addInbound(panel, { protocol: 'vless', remark: 'Backup test' });
  await addClient(panel, 'kept@backup.test', inbound.id);

  const { context, page, errors } = await openPage(browser);
  const uploads: Record<string, string>[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/panel/api/server/importDB')) uploads.push(r.headers());
  });
  await loginUi(page, panel);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
  const card = page.getByRole('region', { name: 'Backup' });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    card.getByRole('button', { name: 'Download backup' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^panel_\d{4}-\d\d-\d\d_\d{6}\.db$/);
  const saved = join(mkdtempSync(join(tmpdir(), 'panel-backup-')), download.suggestedFilename());
  await download.saveAs(saved);
  expect(readFileSync(saved).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
  await expect.poll(() => page.getByRole('status', { name: 'Notifications' }).textContent()).toContain('Backup saved');

  await addClient(panel, 'gone@backup.test', inbound.id);
  const emails = async () =>
    ((await panel.api('GET', '/panel/api/clients/list/paged?pageSize=100')).obj.items as { email: string }[])
      .map((c) => c.email)
      .sort();
  expect(await emails()).toEqual(['gone@backup.test', 'kept@backup.test']);

  await card.getByRole('button', { name: 'Restore backup' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore backup' });
  // The confirmation names what is replaced, with today's counts.
  await expect.poll(() => dialog.textContent()).toContain('the clients with their traffic and IP logs (now 2)');
  expect(await dialog.textContent()).toContain('the inbounds (now 1)');
  expect(await dialog.textContent()).toContain('The panel restarts after the restore');
  await dialog.getByLabel('Backup file').setInputFiles(saved);
  await dialog.getByRole('checkbox', { name: 'I understand that the current data is replaced' }).check();
  await page.evaluate(() => ((window as unknown as { beforeRestore: boolean }).beforeRestore = true));
  await dialog.getByRole('button', { name: 'Restore' }).click();

  // The outcome names the automatic copy of the replaced database.
  const outcome = dialog.getByRole('status');
  await expect.poll(() => outcome.textContent(), { timeout: 15_000 }).toMatch(/Restored \d+ rows from panel_/);
  const kept = /kept at (\S+\.db)\./.exec((await outcome.textContent())!)?.[1];
  expect(kept).toMatch(/backups\/panel_before-import_.*\.db$/);
  expect(readdirSync(join(panel.dataDir, 'backups'))).toEqual([kept!.split('/').pop()]);
  await page.screenshot({ path: shotPath('backup-restored-light-desktop') });
  expect(uploads).toHaveLength(1);
  expect(uploads[0]!['x-csrf-token']).toMatch(/.{16,}/);
  expect(uploads[0]!['x-requested-with']).toBe('XMLHttpRequest');

  // The panel restarts; the page reloads by itself once the panel answers again.
  await expect
    .poll(
      () => page.evaluate(() => !(window as unknown as { beforeRestore?: boolean }).beforeRestore).catch(() => false),
      { timeout: 30_000, interval: 250 },
    )
    .toBe(true);
  await page.waitForLoadState();
  // The session from before the backup still works: the restored database holds the same session secret.
  expect(new URL(page.url()).pathname).toBe(`${new URL(panel.url).pathname}panel/`);
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');

  expect(await emails()).toEqual(['kept@backup.test']);
  await page.goto(`${panel.url}panel/clients`);
  const table = page.getByRole('table');
  await expect.poll(() => table.textContent()).toContain('kept@backup.test');
  expect(await table.textContent()).not.toContain('gone@backup.test');
  expect(errors.filter((e) => !e.includes('Failed to load resource') && !e.includes('WebSocket'))).toEqual([]);
  await context.close();
}

describe.skipIf(missing)('browser UI: logs and backup', () => {
  let panel: Panel;
  let browser: Browser;

  beforeAll(async () => {
    panel = await startPanel({ coreBin: bin ?? '/nonexistent/core', env: { PANEL_LOG_LEVEL: 'info' } });
    writeFileSync(join(panel.dataDir, 'access.log'), ACCESS.join('\n') + '\n');
    writeFileSync(join(panel.dataDir, 'error.log'), ERRORS.join('\n') + '\n');
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  it('panel log: the login’s own lines, the level filter, the line count', async () => {
    await failedLogin(panel);
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/logs');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Logs');
    const tabs = page.getByRole('tablist');
    expect(await tabs.getByRole('tab').allTextContents()).toEqual(['Panel log', 'Core log']);
    expect(await page.getByRole('tab', { name: 'Panel log' }).getAttribute('aria-selected')).toBe('true');

    // Info (the default): the successful login of this very page is there, and the failed one.
    await expect.poll(() => logText(page)).toContain('login succeeded');
    expect(await logText(page)).toContain('login failed');
    const lines = (await logText(page)).split('\n');
    expect(await page.getByText(/^Lines: /).textContent()).toBe(`Lines: ${lines.length}`);
    await page.screenshot({ path: shotPath('logs-panel-light-desktop'), fullPage: true });

    await page.getByRole('combobox', { name: 'Level' }).selectOption('warning');
    await expect.poll(() => logText(page)).not.toContain('login succeeded');
    expect(await logText(page)).toContain('WARN login failed');
    expect(await logText(page)).not.toMatch(/ INFO /);

    await page.getByRole('combobox', { name: 'Level' }).selectOption('error');
    await expect.poll(() => log(page).isVisible()).toBe(false);
    await expect.poll(() => page.getByText('No panel log lines at this level yet.').isVisible()).toBe(true);
    expect(await page.getByText(/^Lines: /).textContent()).toBe('Lines: 0');

    // The system journal: not under systemd here, the panel says so and shows its own log.
    await page.getByRole('combobox', { name: 'Level' }).selectOption('info');
    await page.getByRole('switch', { name: 'System journal' }).check();
    await expect.poll(() => page.getByText(/^syslog: /).textContent()).toContain('showing the panel');
    await expect.poll(() => logText(page)).toContain('login succeeded');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('core log: the access and error logs, direct/blocked/proxy and the keyword; the tab is in the URL', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/logs');
    await page.getByRole('tab', { name: 'Core log' }).click();
    expect(await page.getByRole('tab', { name: 'Core log' }).getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.get('tab')).toBe('core');
    await expect.poll(() => logText(page)).toBe([...ACCESS, ...ERRORS].join('\n'));
    await page.screenshot({ path: shotPath('logs-core-light-desktop'), fullPage: true });

    await page.getByRole('checkbox', { name: 'Direct' }).uncheck();
    await expect.poll(() => logText(page)).not.toContain('direct.example');
    expect(await logText(page)).toContain('blocked.example');
    await page.getByRole('checkbox', { name: 'Blocked' }).uncheck();
    await expect.poll(() => logText(page)).toBe([ACCESS[2], ...ERRORS].join('\n'));

    await page.getByRole('checkbox', { name: 'Direct' }).check();
    await page.getByRole('searchbox', { name: 'Keyword' }).fill('DIRECT.example');
    await expect.poll(() => logText(page)).toBe(ACCESS[0]);
    await page.getByRole('searchbox', { name: 'Keyword' }).fill('nothing-like-this');
    await expect.poll(() => page.getByText(/^No core log lines match/).isVisible()).toBe(true);

    // A reload keeps the tab; the arrow keys move between the tabs.
    await page.reload();
    expect(await page.getByRole('tab', { name: 'Core log' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('tab', { name: 'Core log' }).focus();
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('tab', { name: 'Panel log' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Panel log');
    expect(new URL(page.url()).searchParams.get('tab')).toBe(null);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Download saves exactly the shown lines as a .log file', async () => {
    const { context, page } = await openPage(browser);
    await loginUi(page, panel, 'panel/logs');
    await expect.poll(() => logText(page)).toContain('login succeeded');
    for (const tab of ['Panel log', 'Core log']) {
      await page.getByRole('tab', { name: tab }).click();
      await expect.poll(() => log(page).isVisible()).toBe(true);
      const shown = await logText(page);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(tab === 'Panel log' ? /^panel-log_.*\.log$/ : /^core-log_.*\.log$/);
      const file = readFileSync((await download.path())!, 'utf8');
      expect(file).toBe(`${shown}\n`);
      await expect.poll(() => page.getByRole('status', { name: 'Notifications' }).textContent()).toContain('Saved');
    }
    await context.close();
  });

  it('Follow reads the log again every few seconds, shows new lines, stops when hidden and when turned off', async () => {
    const { context, page, requests } = await openPage(browser);
    await loginUi(page, panel, 'panel/logs');
    await expect.poll(() => logText(page)).toContain('login succeeded');
    // Off: nothing is read again by itself.
    let mark = logRequests(requests, 'logs');
    await page.waitForTimeout(4000);
    expect(logRequests(requests, 'logs') - mark).toBe(0);

    const before = (await logText(page)).split('\n').length;
    await page.getByRole('switch', { name: 'Follow' }).check();
    mark = logRequests(requests, 'logs');
    await failedLogin(panel);
    await page.waitForTimeout(7000);
    expect(logRequests(requests, 'logs') - mark).toBeGreaterThanOrEqual(2);
    expect((await logText(page)).split('\n').length).toBeGreaterThan(before);
    // Scrolled to the end.
    const atEnd = await log(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 4);
    expect(atEnd).toBe(true);

    // Hidden: nothing; visible again: one read at once.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.waitForTimeout(500);
    mark = logRequests(requests, 'logs');
    await page.waitForTimeout(7000);
    expect(logRequests(requests, 'logs') - mark).toBe(0);
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect.poll(() => logRequests(requests, 'logs') - mark).toBeGreaterThanOrEqual(1);

    await page.getByRole('switch', { name: 'Follow' }).uncheck();
    await page.waitForTimeout(500);
    mark = logRequests(requests, 'logs');
    await page.waitForTimeout(7000);
    expect(logRequests(requests, 'logs') - mark).toBe(0);

    // The core log follows too.
    await page.getByRole('tab', { name: 'Core log' }).click();
    await expect.poll(() => log(page).isVisible()).toBe(true);
    await page.getByRole('switch', { name: 'Follow' }).check();
    mark = logRequests(requests, 'corelogs');
    await page.waitForTimeout(7000);
    expect(logRequests(requests, 'corelogs') - mark).toBeGreaterThanOrEqual(2);
    await page.getByRole('tab', { name: 'Panel log' }).click();
    await page.waitForTimeout(500);
    mark = logRequests(requests, 'corelogs');
    await page.waitForTimeout(4000);
    expect(logRequests(requests, 'corelogs') - mark).toBe(0);
    await context.close();
  }, 60_000);

  it('axe-core: both tabs and the restore dialog, light and dark, desktop and phone', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const opts of [DESKTOP, PHONE]) {
        const size = opts === DESKTOP ? 'desktop' : 'phone';
        const { context, page } = await openPage(browser, { ...opts, colorScheme });
        await loginUi(page, panel, 'panel/logs');
        await expect.poll(() => logText(page)).toContain('login succeeded');
        expect(await axeProblems(page), `panel log ${colorScheme} ${size}`).toEqual([]);
        await page.screenshot({ path: shotPath(`logs-panel-${colorScheme}-${size}`) });
        await page.getByRole('tab', { name: 'Core log' }).click();
        await expect.poll(() => logText(page)).toContain('proxy.example');
        expect(await axeProblems(page), `core log ${colorScheme} ${size}`).toEqual([]);
        await page.screenshot({ path: shotPath(`logs-core-${colorScheme}-${size}`) });

        await page.goto(`${panel.url}panel/`);
        const card = page.getByRole('region', { name: 'Backup' });
        await card.getByRole('button', { name: 'Restore backup' }).scrollIntoViewIfNeeded();
        await page.screenshot({ path: shotPath(`backup-card-${colorScheme}-${size}`) });
        await card.getByRole('button', { name: 'Restore backup' }).click();
        const dialog = page.getByRole('dialog', { name: 'Restore backup' });
        await expect.poll(() => dialog.textContent()).toMatch(/the clients with their traffic and IP logs \(now \d+\)/);
        // Restore without a file or the confirmation: both fields say what is missing.
        await dialog.getByRole('button', { name: 'Restore' }).click();
        expect(await dialog.getByLabel('Backup file').getAttribute('aria-invalid')).toBe('true');
        expect(await dialog.getByText('Choose a backup file first.').isVisible()).toBe(true);
        expect(await dialog.getByText('Tick the confirmation first.').isVisible()).toBe(true);
        expect(await axeProblems(page), `restore dialog ${colorScheme} ${size}`).toEqual([]);
        await page.screenshot({ path: shotPath(`backup-restore-${colorScheme}-${size}`) });
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await context.close();
      }
    }
  }, 180_000);

  it('in Persian the page is right to left and translated (tabs, the log, the restore dialog)', async () => {
    const { context, page } = await openPage(browser, PHONE);
    await loginUi(page, panel, 'panel/logs');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fa');
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('گزارش‌ها');
    expect(await page.getByRole('tab').allTextContents()).toEqual(['گزارش پنل', 'گزارش هسته']);
    await expect.poll(() => page.getByRole('log', { name: 'خطوط گزارش' }).textContent()).toContain('login');
    await page.screenshot({ path: shotPath('logs-panel-fa-phone') });
    await page.goto(`${panel.url}panel/`);
    await page.getByRole('button', { name: 'بازیابی پشتیبان' }).click();
    await expect.poll(() => page.getByRole('dialog', { name: 'بازیابی پشتیبان' }).isVisible()).toBe(true);
    await page.screenshot({ path: shotPath('backup-restore-fa-phone') });
    await page.evaluate(() => localStorage.removeItem('panel.lang'));
    await context.close();
  });

  it('a file that is not a backup is refused with the panel’s message and changes nothing', async () => {
    const { context, page } = await openPage(browser);
    await loginUi(page, panel);
    await page.getByRole('button', { name: 'Restore backup' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore backup' });
    await dialog.getByLabel('Backup file').setInputFiles({
      name: 'notes.db',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('these are not the bytes of a database'),
    });
    await dialog.getByRole('checkbox', { name: 'I understand that the current data is replaced' }).check();
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/^Restore failed: .*SQLite/i);
    expect(await dialog.getByRole('button', { name: 'Restore' }).isEnabled()).toBe(true);
    expect(readdirSync(panel.dataDir)).not.toContain('backups');
    await context.close();
  });

  it('journey 7: download a backup, add a client, restore the backup in the page; the client is gone', async () => {
    await restoreJourney(browser, panel);
  }, 90_000);

  // The same journey on PostgreSQL: the backup is the same portable SQLite file, restored into PostgreSQL.
  it.skipIf(!dbs.some((d) => d.name === 'pg'))(
    'journey 7 on PostgreSQL',
    async () => {
      const pg = dbs.find((d) => d.name === 'pg')!;
      const onPg = await startPanel({
        coreBin: bin ?? '/nonexistent/core',
        env: { PANEL_DB_URL: await pg.freshUrl() },
      });
      await restoreJourney(browser, onPg);
    },
    120_000,
  );
});
