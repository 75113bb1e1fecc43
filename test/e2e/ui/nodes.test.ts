// The nodes page in real Chromium against a second real panel as the node (as test/e2e/nodes.test.ts does, without
// a core: the probe reads the node's status API): add it through the dialog with an API token created on it, Test,
// Save, the card online with a latency, Probe, pause/resume, edit keeping the write-only token, an inbound bound to
// it listed on its card, delete. axe-core on the page and the dialog, desktop and phone, light and dark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { addInbound, createToken, killAll, startPanel, type Panel } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

const missing = browserMissing('nodes UI');

describe.skipIf(missing)('nodes page in Chromium', () => {
  let central: Panel;
  let node: Panel;
  let browser: Browser;

  beforeAll(async () => {
    [central, node] = await Promise.all([
      startPanel({ coreBin: '/nonexistent/core' }),
      startPanel({ coreBin: '/nonexistent/core' }),
    ]);
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  const card = (page: Page, name: string): Locator => page.getByRole('article', { name, exact: true });
  const notes = (page: Page) => page.getByRole('status', { name: 'Notifications' });
  const stored = async (name: string) =>
    ((await central.api('GET', '/panel/api/nodes/list')).obj as any[]).find((n) => n.name === name);

  async function openDialog(page: Page, button: string, title: string): Promise<Locator> {
    await page.getByRole('button', { name: button, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: title });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    return dialog;
  }

  it('journey: add a real panel as a node (Test, Save), probe, pause/resume, edit keeping the token, delete', async () => {
    // An API token created on the node through its API, as an operator would in its Settings.
    const token = await createToken(node.url);
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, central, 'panel/nodes');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Nodes');
    await expect.poll(() => page.getByText(/No nodes yet/).count()).toBe(1);

    const add = await openDialog(page, 'Add node', 'Add node');
    await add.getByRole('textbox', { name: 'Name', exact: true }).fill('edge');
    await add.getByRole('combobox', { name: 'Scheme' }).selectOption('http');
    await add.getByRole('textbox', { name: 'Address' }).fill('127.0.0.1');
    await add.getByRole('spinbutton', { name: 'Port' }).fill(String(node.ports.panel));
    await add.getByLabel('API token', { exact: true }).fill(token);
    // Without permission for a loopback address the test says why.
    await add.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => add.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/^(offline|error): /);
    await add.getByRole('checkbox', { name: 'Allow a private or loopback address' }).check();
    await add.getByRole('button', { name: 'Test', exact: true }).click();
    await expect
      .poll(() => add.getByRole('status').textContent(), { timeout: 15_000 })
      .toMatch(/^online, latency \d+ ms$/);
    expect(await stored('edge')).toBeUndefined(); // Test saves nothing
    expect(await axeProblems(page), 'add dialog').toEqual([]);
    await page.screenshot({ path: shotPath('nodes-journey-add-dialog') });
    await add.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => add.isVisible()).toBe(false);

    const edge = card(page, 'edge');
    await expect.poll(() => edge.textContent(), { timeout: 15_000 }).toMatch(/Online.*Latency\d+ ms/);
    const saved = await stored('edge');
    expect(saved).toMatchObject({
      status: 'online',
      scheme: 'http',
      port: node.ports.panel,
      hasApiToken: true,
      tlsMode: 'verify',
    });
    expect(saved.apiToken).toBe('');
    expect(await edge.getByRole('img', { name: /^CPU of edge/ }).count()).toBe(1);
    expect(await edge.getByRole('img', { name: /^Memory of edge/ }).count()).toBe(1);
    await expect.poll(() => edge.textContent()).toMatch(/Versionspanel v\d/);

    await edge.getByRole('button', { name: 'Probe edge' }).click();
    await expect.poll(() => notes(page).textContent(), { timeout: 15_000 }).toMatch(/edge: online, latency \d+ ms/);

    // Pause and resume through the switch; the API agrees.
    const sw = edge.getByRole('switch', { name: 'Enable edge' });
    expect(await sw.isChecked()).toBe(true);
    await sw.uncheck();
    await expect.poll(() => notes(page).textContent()).toContain('Node edge paused');
    await expect.poll(async () => (await stored('edge')).enable).toBe(false);
    expect(await sw.isChecked()).toBe(false);
    await sw.check();
    await expect.poll(() => notes(page).textContent()).toContain('Node edge enabled');
    await expect.poll(async () => (await stored('edge')).enable).toBe(true);

    // An inbound bound to the node (through the API) shows on its card after the inbounds invalidate.
    const ib = await addInbound(central, { protocol: 'vmess', remark: 'on-edge' });
    const upd = await central.api('POST', `/panel/api/inbounds/update/${ib.id}`, {
      remark: 'on-edge',
      enable: true,
      listen: '127.0.0.1',
      port: ib.port,
      protocol: 'vmess',
      expiryTime: 0,
      total: 0,
      settings: {},
      streamSettings: { network: 'tcp', security: 'none' },
      sniffing: {},
      nodeId: saved.id,
    });
    expect(upd.success, upd.msg).toBe(true);
    const link = edge.getByRole('link', { name: 'on-edge' });
    await expect.poll(() => link.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => edge.textContent(), { timeout: 10_000 }).toMatch(/inbounds: 1,/);
    await page.screenshot({ path: shotPath('nodes-journey-bound-inbound'), fullPage: true });
    await link.click();
    await page.waitForURL(`${central.url}panel/inbounds`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbounds');
    await page.goBack();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Nodes');

    // Edit: the token field is empty, the note says one is stored; saving with it empty keeps it.
    const edit = await openDialog(page, 'Edit edge', 'Edit node');
    const tokenField = edit.getByLabel('API token', { exact: true });
    expect(await tokenField.inputValue()).toBe('');
    expect(await edit.getByText(/A token is stored/).count()).toBe(1);
    expect(await edit.getByRole('textbox', { name: 'Address' }).inputValue()).toBe('127.0.0.1');
    // Test with the stored token (connection unchanged): the saved node is probed.
    await edit.getByRole('button', { name: 'Test', exact: true }).click();
    await expect
      .poll(() => edit.getByRole('status').textContent(), { timeout: 15_000 })
      .toMatch(/^online, latency \d+ ms$/);
    await edit.getByRole('textbox', { name: 'Remark' }).fill('edge in the lab');
    expect(await axeProblems(page), 'edit dialog').toEqual([]);
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => edit.isVisible()).toBe(false);
    await expect.poll(() => notes(page).textContent()).toContain('Node edge saved');
    await expect.poll(() => edge.textContent()).toContain('edge in the lab');
    expect(await stored('edge')).toMatchObject({ remark: 'edge in the lab', hasApiToken: true });
    expect((await central.api('POST', `/panel/api/nodes/probe/${saved.id}`)).obj.status).toBe('online');
    await edge.getByRole('button', { name: 'Probe edge' }).click();
    await expect.poll(() => edge.textContent()).toMatch(/Online/);

    // A field the panel refuses is marked, with its message as the field's description.
    const bad = await openDialog(page, 'Edit edge', 'Edit node');
    await bad.getByRole('textbox', { name: 'Address' }).fill('http://x');
    await bad.getByRole('button', { name: 'Save' }).click();
    const address = bad.getByRole('textbox', { name: 'Address' });
    await expect.poll(() => address.getAttribute('aria-invalid')).toBe('true');
    expect(await bad.getByRole('alert').textContent()).toMatch(/^address: must be a host name/);
    await page.keyboard.press('Escape');
    await expect.poll(() => bad.isVisible()).toBe(false);

    // Delete, with a confirmation that says the bound inbound is not moved.
    await edge.getByRole('button', { name: 'Delete edge' }).click();
    const del = page.getByRole('dialog', { name: 'Delete node' });
    await expect.poll(() => del.textContent()).toMatch(/Inbounds bound to it \(1\) are not moved/);
    await del.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => notes(page).textContent()).toContain('Node edge deleted');
    await expect.poll(() => page.getByText(/No nodes yet/).count()).toBe(1);
    expect(await stored('edge')).toBeUndefined();
    await central.api('POST', `/panel/api/inbounds/del/${ib.id}`);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('axe-core: no serious or critical violation on the page and the dialog, light and dark, desktop and phone', async () => {
    const r = await central.api('POST', '/panel/api/nodes/add', {
      name: 'lab',
      remark: 'second panel',
      scheme: 'http',
      address: '127.0.0.1',
      port: node.ports.panel,
      apiToken: node.token,
      allowPrivateAddress: true,
    });
    expect(r.success, r.msg).toBe(true);
    expect((await central.api('POST', `/panel/api/nodes/probe/${r.obj.id}`)).obj.status).toBe('online');
    // One that is down, so the error colours and the last error are on the page too.
    const down = await central.api('POST', '/panel/api/nodes/add', {
      name: 'gone',
      scheme: 'https',
      address: '127.0.0.1',
      port: 9,
      apiToken: 'x',
      allowPrivateAddress: true,
    });
    expect(down.success, down.msg).toBe(true);
    await central.api('POST', `/panel/api/nodes/probe/${down.obj.id}`);

    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [size, opts] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        const { context, page, errors } = await openPage(browser, { ...opts, colorScheme });
        await loginUi(page, central, 'panel/nodes');
        await expect.poll(() => card(page, 'lab').textContent(), { timeout: 10_000 }).toMatch(/Online/);
        await expect.poll(() => card(page, 'gone').textContent()).toMatch(/Offline.*Last error:/);
        const where = `${colorScheme} ${size}`;
        expect(await axeProblems(page), `page ${where}`).toEqual([]);
        if (size === 'phone')
          expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(390);
        await page.screenshot({ path: shotPath(`nodes-${colorScheme}-${size}`), fullPage: true });
        const dialog = await openDialog(page, 'Edit lab', 'Edit node');
        await dialog.getByRole('button', { name: 'Test', exact: true }).click();
        await expect.poll(() => dialog.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/^online/);
        expect(await axeProblems(page), `dialog ${where}`).toEqual([]);
        await page.screenshot({ path: shotPath(`nodes-dialog-${colorScheme}-${size}`) });
        if (colorScheme === 'dark' && size === 'phone') {
          // Right to left: Persian, its digits and strings from the page's catalog.
          await page.keyboard.press('Escape');
          await page.getByRole('combobox', { name: 'Language' }).selectOption('fa');
          await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('نودها');
          await expect.poll(() => card(page, 'lab').textContent()).toContain('آنلاین');
          expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
          expect(await axeProblems(page), `page fa ${where}`).toEqual([]);
          expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(390);
          await page.screenshot({ path: shotPath('nodes-fa-dark-phone'), fullPage: true });
        }
        expect(errors).toEqual([]);
        await context.close();
      }
    }
  }, 180_000);
});
