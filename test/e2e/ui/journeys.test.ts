// Journeys (2), (3), (4) and (7) of the UI in real Chromium on the built panel with the test core: a
// vless+reality inbound with generated keys and the port-in-use message, a client with links, QR codes
// (decoded from the rendered pixels) and Copy, stop/restart of the core seen live, and (3) again with the
// keyboard only on a 390x844 viewport.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePorts, killAll, startPanel, testCoreBin, type Panel } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

// Both are CommonJS: loaded through require to keep their plain call signatures under NodeNext.
const require = createRequire(import.meta.url);
const { PNG } = require('pngjs') as {
  PNG: { sync: { read(b: Buffer): { width: number; height: number; data: Buffer } } };
};
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const bin = testCoreBin();
const missing = browserMissing('UI journeys');

/** Decodes the QR code an element shows, from its rendered pixels. */
async function decodeQr(page: Page, locator: ReturnType<Page['locator']>): Promise<string | null> {
  await locator.scrollIntoViewIfNeeded();
  const png = PNG.sync.read(await locator.screenshot());
  return (
    jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data ??
    null
  );
}

/** Presses Tab until the focused element has the accessible name `name` (keyboard only, no clicks). */
async function tabTo(page: Page, name: string | RegExp, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el) return '';
      const labelled = el.getAttribute('aria-label');
      if (labelled) return labelled;
      const label = (el as HTMLInputElement).labels?.[0];
      return (label?.textContent ?? el.textContent ?? '').trim();
    });
    if (typeof name === 'string' ? focused === name : name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

describe.skipIf(missing || !bin)('browser UI journeys with the core', () => {
  let panel: Panel;
  let browser: Browser;
  let port = 0;

  beforeAll(async () => {
    panel = await startPanel({ coreBin: bin! });
    [port] = await freePorts(1);
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  it('journey 2: add a vless+reality inbound with generated keys; the same port again shows the port-in-use message', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/inbounds');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbounds');
    await page.getByRole('button', { name: 'Add inbound' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add inbound' });
    await dialog.getByRole('combobox', { name: 'Protocol' }).selectOption('vless');
    await dialog.getByRole('spinbutton', { name: 'Port' }).fill(String(port));
    await dialog.getByRole('textbox', { name: 'Remark' }).fill('Reality one');
    await dialog.getByRole('combobox', { name: 'Security' }).selectOption('reality');
    const pub = dialog.getByRole('textbox', { name: 'Public key' });
    await expect.poll(() => pub.inputValue()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const publicKey = await pub.inputValue();
    await page.screenshot({ path: shotPath('inbound-add-desktop') });
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    const row = page.getByRole('row').filter({ hasText: 'Reality one' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(true);

    const list = await panel.api('GET', '/panel/api/inbounds/list');
    const stored = list.obj.find((i: any) => i.remark === 'Reality one');
    expect(stored.port).toBe(port);
    expect(stored.streamSettings.security).toBe('reality');
    expect(stored.streamSettings.realitySettings.settings.publicKey).toBe(publicKey);
    expect(stored.streamSettings.realitySettings.privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The same port again: the panel refuses, the dialog says why and stays open.
    await page.getByRole('button', { name: 'Add inbound' }).click();
    await dialog.getByRole('spinbutton', { name: 'Port' }).fill(String(port));
    await dialog.getByRole('textbox', { name: 'Remark' }).fill('Clash');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/port .*(in use|already)/i);
    expect(await dialog.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);

    // The enable switch turns the inbound off through the API.
    await row.getByRole('switch', { name: 'Enabled' }).click();
    await expect
      .poll(
        async () =>
          (await panel.api('GET', '/panel/api/inbounds/list')).obj.find((i: any) => i.remark === 'Reality one').enable,
      )
      .toBe(false);
    await row.getByRole('switch', { name: 'Enabled' }).click();
    await expect
      .poll(
        async () =>
          (await panel.api('GET', '/panel/api/inbounds/list')).obj.find((i: any) => i.remark === 'Reality one').enable,
      )
      .toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('journey 3: add a client to it, open its links; each QR code decodes to the link of /clients/links and Copy puts it on the clipboard', async () => {
    const { context, page, errors } = await openPage(browser, DESKTOP);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(panel.url).origin });
    await loginUi(page, panel, 'panel/clients');
    await page.getByRole('button', { name: 'Add client' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add client' });
    await dialog.getByRole('textbox', { name: 'Email' }).fill('alice@example.com');
    await dialog.getByRole('group', { name: 'Inbounds' }).getByRole('checkbox', { name: 'Reality one' }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect
      .poll(() => page.getByRole('status', { name: 'Notifications' }).textContent())
      .toContain('alice@example.com added');
    await expect.poll(() => page.getByRole('checkbox', { name: 'Select alice@example.com' }).count()).toBe(1);

    const expected: string[] = (await panel.api('GET', '/panel/api/clients/links/alice%40example.com')).obj;
    expect(expected.length).toBe(1);
    expect(expected[0]).toMatch(/^vless:\/\/.*security=reality/);
    await page.getByRole('button', { name: 'Links for alice@example.com' }).click();
    const links = page.getByRole('dialog', { name: 'Links for alice@example.com' });
    const qrs = links.getByRole('img', { name: /^QR code/ });
    await expect.poll(() => qrs.count()).toBe(expected.length);
    await page.screenshot({ path: shotPath('client-links-desktop') });
    expect(await axeProblems(page)).toEqual([]);
    for (let i = 0; i < expected.length; i++) {
      expect(await decodeQr(page, qrs.nth(i))).toBe(expected[i]);
      await links.getByRole('button', { name: 'Copy' }).nth(i).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(expected[i]);
    }
    // The subscription URL has its QR code and Copy too; the IP log is there (empty: no traffic yet).
    const subId = (await panel.api('GET', '/panel/api/clients/get/alice%40example.com')).obj.client.subId;
    const subQr = links.getByRole('img', { name: 'Subscription QR code' });
    await expect.poll(() => subQr.count()).toBe(1);
    const subUrl = await decodeQr(page, subQr);
    expect(subUrl).toMatch(new RegExp(`^https?://[^/]+/sub/${subId}$`));
    await links.getByRole('button', { name: 'Copy subscription URL' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(subUrl);
    expect(await links.getByText('No IP recorded.').isVisible()).toBe(true);
    await links.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => links.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('journey 4: stop and restart the core from the overview; the state changes without a reload', async () => {
    const { context, page } = await openPage(browser);
    await loginUi(page, panel);
    const state = page.getByRole('status', { name: 'Core state' });
    await expect.poll(() => state.textContent(), { timeout: 10_000 }).toContain('running');
    let loads = 0;
    page.on('framenavigated', () => loads++);
    await page.getByRole('button', { name: 'Stop core' }).click();
    await expect.poll(() => state.textContent(), { timeout: 10_000 }).toContain('stopped');
    await page.getByRole('button', { name: 'Restart core' }).click();
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toContain('running');
    expect(loads).toBe(0);
    await context.close();
  });

  it('journey 7: journey 3 with the keyboard only on a 390x844 phone', async () => {
    const { context, page, errors } = await openPage(browser, PHONE);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(panel.url).origin });
    await loginUi(page, panel, 'panel/clients');
    await expect.poll(() => page.getByRole('checkbox', { name: 'Select alice@example.com' }).count()).toBe(1);
    await tabTo(page, 'Add client');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add client' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    // The dialog puts the focus on its first field.
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement)?.name)).toBe('email');
    await page.keyboard.type('bob@example.com');
    await tabTo(page, 'Reality one');
    await page.keyboard.press('Space');
    await tabTo(page, 'Save');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => page.getByRole('button', { name: 'Links for bob@example.com' }).count()).toBe(1);
    await page.screenshot({ path: shotPath('clients-phone'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await tabTo(page, 'Links for bob@example.com');
    await page.keyboard.press('Enter');
    const links = page.getByRole('dialog', { name: 'Links for bob@example.com' });
    const expected: string[] = (await panel.api('GET', '/panel/api/clients/links/bob%40example.com')).obj;
    await expect.poll(() => links.getByRole('img', { name: /^QR code/ }).count()).toBe(expected.length);
    await page.screenshot({ path: shotPath('client-links-phone') });
    expect(await decodeQr(page, links.getByRole('img', { name: /^QR code/ }).first())).toBe(expected[0]);
    await tabTo(page, 'Copy');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(expected[0]);
    // Esc closes the dialog and the focus returns to the button that opened it.
    await page.keyboard.press('Escape');
    await expect.poll(() => links.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Links for bob@example.com',
    );
    expect(errors).toEqual([]);
    await context.close();
  });
  it('edits a client (limit, expiry, group, comment, flow), resets its traffic and deletes it keeping the traffic row', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/clients');
    await page.getByRole('button', { name: 'Edit alice@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit alice@example.com' });
    await dialog.getByRole('spinbutton', { name: /^Traffic limit/ }).fill('12.5');
    await dialog.getByLabel(/^Expires on/).fill('2031-05-06');
    await dialog.getByRole('textbox', { name: 'Group' }).fill('team-a');
    await dialog.getByRole('textbox', { name: 'Comment' }).fill('edited in the browser');
    await dialog.getByText('Advanced').click();
    await dialog.getByRole('combobox', { name: 'Flow' }).selectOption('xtls-rprx-vision');
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    const got = (await panel.api('GET', '/panel/api/clients/get/alice%40example.com')).obj;
    expect(got.client).toMatchObject({
      totalGB: 12.5 * 1024 ** 3,
      group: 'team-a',
      comment: 'edited in the browser',
      flow: 'xtls-rprx-vision',
      enable: true,
    });
    expect(new Date(got.client.expiryTime).getFullYear()).toBe(2031);
    expect(got.inboundIds.length).toBe(1);
    await expect
      .poll(() => page.getByRole('row').filter({ hasText: 'alice@example.com' }).textContent())
      .toContain('team-a');

    // The advanced part: a new UUID from the server's generator, a delayed start, a reverse tag.
    await page.getByRole('button', { name: 'Edit alice@example.com' }).click();
    await dialog.getByText('Advanced').click();
    const uuid = dialog.getByRole('textbox', { name: 'UUID' });
    const oldUuid = await uuid.inputValue();
    await dialog.getByRole('button', { name: 'Generate UUID' }).click();
    await expect.poll(() => uuid.inputValue()).not.toBe(oldUuid);
    const newUuid = await uuid.inputValue();
    expect(newUuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await dialog.getByRole('spinbutton', { name: /^Start on first use/ }).fill('30');
    await dialog.getByRole('textbox', { name: /^Reverse tag/ }).fill('r-alice');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    const advanced = (await panel.api('GET', '/panel/api/clients/get/alice%40example.com')).obj.client;
    expect(advanced).toMatchObject({ uuid: newUuid, expiryTime: -30 * 86_400_000, reverse: { tag: 'r-alice' } });

    const up = await panel.api('POST', '/panel/api/clients/updateTraffic/alice%40example.com', {
      upload: 1000,
      download: 2000,
    });
    expect(up.success, up.msg).toBe(true);
    await page.getByRole('button', { name: 'Edit alice@example.com' }).click();
    await dialog.getByRole('button', { name: 'Reset traffic' }).click();
    await expect
      .poll(() => page.getByRole('status', { name: 'Notifications' }).textContent())
      .toContain('Traffic of alice@example.com reset');
    const t = (await panel.api('GET', '/panel/api/clients/traffic/alice%40example.com')).obj;
    expect(t.up + t.down).toBe(0);

    await page.getByRole('button', { name: 'Edit alice@example.com' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('checkbox', { name: 'Keep traffic' }).check();
    await dialog.getByRole('button', { name: 'Delete client' }).click();
    await expect.poll(() => page.getByRole('checkbox', { name: 'Select alice@example.com' }).count()).toBe(0);
    expect((await panel.api('GET', '/panel/api/clients/get/alice%40example.com')).success).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });
  it("resets an inbound's traffic and deletes an inbound from its row", async () => {
    const [p2] = await freePorts(1);
    const temp = await panel.api('POST', '/panel/api/inbounds/add', {
      protocol: 'vmess',
      port: p2,
      remark: 'Temp',
      enable: true,
      settings: {},
      streamSettings: { network: 'tcp', security: 'none' },
    });
    expect(temp.success, temp.msg).toBe(true);
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/inbounds');
    await page.getByRole('button', { name: 'Reset traffic of Reality one' }).click();
    await expect
      .poll(() => page.getByRole('status', { name: 'Notifications' }).textContent())
      .toContain('Traffic of Reality one reset');
    await page.getByRole('button', { name: 'Delete Temp' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete inbound' });
    expect(await dialog.textContent()).toContain(`port ${p2}`);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Temp' }).count()).toBe(0);
    const list = (await panel.api('GET', '/panel/api/inbounds/list')).obj as { remark: string }[];
    expect(list.map((i) => i.remark)).toEqual(['Reality one']);
    expect(errors).toEqual([]);
    await context.close();
  });
});
