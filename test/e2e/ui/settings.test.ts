// The settings page in real Chromium on the built panel: the four tabs (axe on each, desktop and phone, light
// and dark), a bad port shown next to the Port field, Save sending only the changed keys, journey 4 (an API
// token created and copied in the page, used from here, disabled in the page and refused), journey 5 (2FA
// enrolled by decoding the page's QR code, then a login with the code), and journey 6 (base path and port
// changed, "Restart panel", the browser follows the panel to its new address) on a panel of its own.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { generate } from 'otplib';
import { ADMIN, freePorts, killAll, startPanel, type Panel } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

const require = createRequire(import.meta.url);
const { PNG } = require('pngjs') as {
  PNG: { sync: { read(b: Buffer): { width: number; height: number; data: Buffer } } };
};
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const CLI = fileURLToPath(new URL('../../../dist/adapters/node/cli.js', import.meta.url));

const missing = browserMissing('settings page');
const TABS = ['Panel', 'Security', 'Subscription', 'Telegram'];

async function decodeQr(locator: ReturnType<Page['locator']>): Promise<string | null> {
  await locator.scrollIntoViewIfNeeded();
  const png = PNG.sync.read(await locator.screenshot());
  return (
    jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data ??
    null
  );
}

const notifications = (page: Page) => page.getByRole('status', { name: 'Notifications' });
const errorsRegion = (page: Page) => page.getByRole('alert', { name: 'Errors' });

async function openTab(page: Page, name: string): Promise<void> {
  await page.getByRole('tab', { name, exact: true }).click();
  await expect.poll(() => page.getByRole('tab', { name, exact: true }).getAttribute('aria-selected')).toBe('true');
  await expect.poll(() => page.getByRole('tabpanel', { name, exact: true }).getByText('Loading…').count()).toBe(0);
}

describe.skipIf(missing)('settings page', () => {
  let panel: Panel;
  let browser: Browser;

  beforeAll(async () => {
    panel = await startPanel({ coreBin: '/nonexistent/core' });
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  it('has the four tabs; no serious axe violation on any tab, desktop and phone, light and dark', async () => {
    for (const [size, opts] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const { context, page, errors } = await openPage(browser, { ...opts, colorScheme: scheme });
        await loginUi(page, panel, 'panel/settings');
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Settings');
        expect(await page.getByRole('tablist').getByRole('tab').allTextContents()).toEqual(TABS);
        for (const tab of TABS) {
          await openTab(page, tab);
          if (tab === 'Security') {
            await expect.poll(() => page.getByRole('button', { name: 'Enable two-factor' }).count()).toBe(1);
            await expect.poll(() => page.getByRole('switch', { name: /^Enabled: e2e-/ }).count()).toBe(1);
          }
          expect(await axeProblems(page), `${tab} ${size} ${scheme}`).toEqual([]);
          if (size === 'phone')
            expect(await page.evaluate(() => document.documentElement.scrollWidth), tab).toBeLessThanOrEqual(390);
          await page.screenshot({ path: shotPath(`settings-${tab.toLowerCase()}-${size}-${scheme}`), fullPage: true });
        }
        // The tab is in the URL: a reload shows the same tab.
        await page.reload();
        await expect.poll(() => page.getByRole('tab', { name: 'Telegram' }).getAttribute('aria-selected')).toBe('true');
        expect(errors).toEqual([]);
        await context.close();
      }
    }
  });

  it('a bad port shows the API message next to the Port field; Save sends only the changed keys', async () => {
    const { context, page, errors } = await openPage(browser);
    const bodies: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/panel/setting/update')) bodies.push(JSON.parse(r.postData() ?? 'null'));
    });
    await loginUi(page, panel, 'panel/settings');
    await openTab(page, 'Panel');
    const port = page.getByRole('spinbutton', { name: 'Port' });
    await port.fill('70000');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => port.getAttribute('aria-invalid')).toBe('true');
    // Described by the environment note (PANEL_PORT overrides it in this panel) and by the API's message.
    expect((await port.getAttribute('aria-describedby'))?.split(' ')).toEqual([
      'setting-webPort-env',
      'setting-webPort-error',
    ]);
    expect(await page.locator('#setting-webPort-env').textContent()).toMatch(/^Set by an environment variable/);
    expect(await page.locator('#setting-webPort-error').textContent()).toBe('must be a port from 1 to 65535');
    // The message is announced too, and the field keeps its name.
    await expect.poll(() => errorsRegion(page).textContent()).toContain('webPort: must be a port from 1 to 65535');
    expect(await page.getByRole('spinbutton', { name: 'Port', exact: true }).count()).toBe(1);
    await page.screenshot({ path: shotPath('settings-bad-port-desktop'), fullPage: true });
    expect(bodies).toEqual([{ webPort: 70000 }]);

    // Put the port back, change the page size: only pageSize is sent; the error is gone.
    await port.fill(String(panel.ports.panel));
    await page.getByRole('spinbutton', { name: 'Page size' }).fill('50');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Saved: Page size.');
    expect(bodies.at(-1)).toEqual({ pageSize: 50 });
    expect(await port.getAttribute('aria-invalid')).toBeNull();
    expect((await panel.api('POST', '/panel/setting/all')).obj.pageSize).toBe(50);
    // A subscription title on its tab; nothing changed → nothing sent.
    await openTab(page, 'Subscription');
    await page.getByRole('textbox', { name: 'Title' }).fill('My VPN');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Saved: Title.');
    expect(bodies.at(-1)).toEqual({ subTitle: 'My VPN' });
    const sent = bodies.length;
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Nothing to save');
    expect(bodies.length).toBe(sent);
    // Telegram: "Send backup now" without a bot token says why, next to the token field.
    await openTab(page, 'Telegram');
    await page.getByRole('button', { name: 'Send backup now' }).click();
    await expect.poll(() => errorsRegion(page).textContent()).toContain('tgBotToken: set the Telegram bot token first');
    expect(await page.getByLabel('Bot token').getAttribute('aria-invalid')).toBe('true');
    // In Persian the page is right to left, every string translated, and still passes axe.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fa');
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await expect.poll(() => page.getByRole('tab', { name: 'تلگرام' }).getAttribute('aria-selected')).toBe('true');
    await openTab(page, 'امنیت');
    expect(await axeProblems(page)).toEqual([]);
    await page.screenshot({ path: shotPath('settings-security-desktop-fa'), fullPage: true });
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });

  it('journey 4: an API token created and copied in the page works until it is disabled in the page', async () => {
    const { context, page, errors } = await openPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(panel.url).origin });
    await loginUi(page, panel, 'panel/settings?tab=security');
    await page.getByRole('textbox', { name: 'Token name' }).fill('journey-4');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Token journey-4 created');
    const fresh = page.getByRole('group', { name: 'New token journey-4' });
    await fresh.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Token copied');
    const token = await page.evaluate(() => navigator.clipboard.readText());
    expect(token).toMatch(/^[A-Za-z0-9]{48}$/);
    await page.screenshot({ path: shotPath('settings-token-created-desktop'), fullPage: true });

    const list = () =>
      fetch(`${panel.url}panel/api/inbounds/list`, {
        headers: { authorization: `Bearer ${token}`, 'x-requested-with': 'XMLHttpRequest' },
      });
    const ok = await list();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ success: true });

    // Shown once: after Done (and after a reload) the secret is nowhere on the page.
    await fresh.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(token).count()).toBe(0);
    await page.reload();
    const toggle = page.getByRole('switch', { name: 'Enabled: journey-4' });
    await expect.poll(() => toggle.isChecked()).toBe(true);
    expect(await page.content()).not.toContain(token);

    await toggle.click();
    await expect.poll(() => notifications(page).textContent()).toContain('Token journey-4 disabled');
    const refused = await list();
    expect(refused.status).toBe(401);
    expect((await panel.api('GET', '/panel/setting/apiTokens')).obj).toContainEqual(
      expect.objectContaining({ name: 'journey-4', enabled: false }),
    );
    // Delete asks first, then the row is gone.
    await page.getByRole('button', { name: 'Delete journey-4' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete token' });
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Token journey-4 deleted');
    await expect.poll(() => toggle.count()).toBe(0);
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });

  // Last in this panel: it turns two-factor login on (and off again at the end).
  it('journey 5: enrol 2FA by scanning the page’s QR code; a wrong code is refused; log in with the code', async () => {
    const { context, page, errors } = await openPage(browser, PHONE);
    await loginUi(page, panel, 'panel/settings?tab=security');
    await page.getByRole('button', { name: 'Enable two-factor' }).click();
    const qr = page.getByRole('img', { name: 'QR code of the two-factor secret' });
    const uri = await decodeQr(qr);
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    const secret = new URL(uri!).searchParams.get('secret')!;
    expect(secret).toMatch(/^[A-Z2-7]{32,}$/);
    // The secret is also shown as text (in groups of four).
    expect((await page.locator('.settings-secret').textContent())?.replace(/\s/g, '')).toBe(secret);
    await page.screenshot({ path: shotPath('settings-2fa-enrol-phone'), fullPage: true });
    expect(await axeProblems(page)).toEqual([]);

    const code = page.getByRole('textbox', { name: 'Code from the app' });
    const right = await generate({ secret });
    await code.fill(right === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => code.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => errorsRegion(page).textContent()).toContain('code: wrong code');
    expect((await panel.api('POST', '/getTwoFactorEnable')).obj).toBe(false);

    await code.fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Two-factor login is on');
    await expect.poll(() => page.getByRole('button', { name: 'Disable two-factor' }).count()).toBe(1);
    expect((await panel.api('POST', '/getTwoFactorEnable')).obj).toBe(true);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(panel.url);
    const twoFactor = page.getByRole('textbox', { name: 'Two-factor code' });
    await expect.poll(() => twoFactor.isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await twoFactor.fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${panel.url}panel/`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');

    // Turning it off asks for a code too.
    await page.goto(`${panel.url}panel/settings?tab=security`);
    await page.getByRole('button', { name: 'Disable two-factor' }).click();
    await page.getByRole('textbox', { name: 'Code from the app' }).fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn off' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Two-factor login is off');
    expect((await panel.api('POST', '/getTwoFactorEnable')).obj).toBe(false);
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });
});

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 30_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`${args.join(' ')}: ${stderr}`)) : resolve(),
    );
  });
}

describe.skipIf(missing)('settings page: journey 6 (restart to a new address)', () => {
  let panel: Panel;
  let browser: Browser;
  let dataDir = '';
  let newPort = 0;

  beforeAll(async () => {
    // The port must come from the settings, not from PANEL_PORT (an environment override would win after the
    // restart): the CLI stores it first, and the panel starts without the override.
    dataDir = mkdtempSync(join(tmpdir(), 'panel-e2e-'));
    const [p, s, a, n] = await freePorts(4);
    newPort = n!;
    const env = { ...process.env, PANEL_DATA_DIR: dataDir, PANEL_LOG_LEVEL: 'warn' };
    await cli(['set', 'webPort', String(p)], env);
    await cli(['set', 'subPort', String(s)], env);
    panel = await startPanel({
      coreBin: '/nonexistent/core',
      dataDir,
      ports: { panel: p!, sub: s!, api: a! },
      env: { PANEL_PORT: '', SUB_PORT: '' },
    });
    browser = await launch();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('journey 6: change base path and port, Save, "Restart panel"; the browser lands on the new address', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/settings');
    await page.getByRole('spinbutton', { name: 'Port' }).fill(String(newPort));
    await page.getByRole('textbox', { name: 'Base path' }).fill('/moved/');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain('Saved: Port, Base path.');
    await expect
      .poll(() => page.getByText('Some saved changes take effect only after the panel restarts.').count())
      .toBe(1);
    await page.screenshot({ path: shotPath('settings-restart-needed-desktop'), fullPage: true });
    await page.getByRole('button', { name: 'Restart panel' }).click();
    await page.waitForURL((u) => u.port === String(newPort) && u.pathname.startsWith('/moved/'), { timeout: 30_000 });
    const url = new URL(page.url());
    expect(url.port).toBe(String(newPort));
    expect(url.pathname === '/moved/panel/settings' || url.pathname === '/moved/').toBe(true);
    // Logged in (the cookie's path / covers /moved/) or at the login page: either is fine.
    await expect
      .poll(
        async () =>
          (await page.getByRole('heading', { level: 1, name: 'Settings' }).count()) +
          (await page.getByRole('button', { name: 'Log in' }).count()),
      )
      .toBe(1);
    await page.screenshot({ path: shotPath('settings-after-restart-desktop'), fullPage: true });
    // The old address is closed.
    await expect(fetch(panel.url)).rejects.toThrow();
    // Only console noise from the closed old address (the live socket reconnecting) is allowed.
    expect(errors.filter((e) => !/Failed to load resource|WebSocket|ERR_CONNECTION_REFUSED/.test(e))).toEqual([]);
    await context.close();
  });
});
