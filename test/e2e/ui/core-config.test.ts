// The core configuration page in real Chromium on the built panel with the test core: journey 2 (a JSON error's
// line in the editor, Save refused, a valid change saved and the core restarted on it; a routing rule added in the
// Routing tab shows in the editor and is stored), journey 3 (the "direct" outbound tested through the core with its
// latency shown; an outbound the core refuses shows the core's own error), the editor's chunk absent from the
// Overview page, and axe-core on every tab at desktop and phone size, light and dark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { killAll, startPanel, startTarget, testCoreBin, type Panel, type Target } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

const bin = testCoreBin();
const missing = browserMissing('core configuration');
const TABS = [
  'JSON',
  'Routing',
  'Outbounds',
  'Balancers',
  'DNS',
  'Default and diff',
  'Traffic',
  'Running config',
  'Versions and geo',
];

const notifications = (page: Page) => page.getByRole('status', { name: 'Notifications' });
const editor = (page: Page) => page.getByRole('textbox', { name: 'Core configuration' });

async function openCore(page: Page, panel: Panel): Promise<void> {
  await loginUi(page, panel, 'panel/core-config');
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Core');
  await editor(page).waitFor();
}

/** Puts the caret at the end of line `n` (1-based) of the editor, by keyboard. */
async function toLineEnd(page: Page, n: number): Promise<void> {
  await editor(page).click();
  await page.keyboard.press('Control+Home');
  for (let i = 1; i < n; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
}

/** The lines CodeMirror renders now (those in and near the editor's scrolled view), one entry per line. */
const editorLines = (page: Page) => page.locator('.cm-content .cm-line').allTextContents();

describe.skipIf(missing || !bin)('browser UI: core configuration', () => {
  let panel: Panel;
  let browser: Browser;
  let target: Target;

  beforeAll(async () => {
    panel = await startPanel({ coreBin: bin! });
    target = await startTarget();
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await target?.close();
    await killAll();
  });

  it('journey 2: a JSON error shows its line and blocks Save; a fix is saved and the core restarts; a routing rule lands in the JSON and the store', async () => {
    const { context, page, errors } = await openPage(browser);
    await openCore(page, panel);
    const stored = (await panel.api('POST', '/panel/core')).obj.coreSetting as string;
    const line = stored.split('\n').findIndex((l) => l.includes('"loglevel"')) + 1;
    expect(line).toBeGreaterThan(1);
    // The editor shows the stored template from its first line.
    await expect.poll(async () => (await editorLines(page)).slice(0, line)).toEqual(stored.split('\n').slice(0, line));

    // A JSON error typed into the editor: its line number is shown next to it, Save is refused.
    await toLineEnd(page, line);
    await page.keyboard.type(' oops');
    const jsonAlert = page.locator('#cc-json-error');
    await expect.poll(() => jsonAlert.textContent()).toContain(`line ${line}`);
    expect(await jsonAlert.getAttribute('role')).toBe('alert');
    const save = page.getByRole('button', { name: 'Save' });
    expect(await save.isDisabled()).toBe(true);
    await expect.poll(() => page.locator('.cm-lintRange-error').count()).toBeGreaterThan(0);
    await page.screenshot({ path: shotPath('core-config-json-error-desktop') });

    // The fix: the line becomes a valid change (log level info), and Save goes through the core's test.
    await page.keyboard.press('Shift+Home');
    await page.keyboard.type('"loglevel": "info"');
    await expect.poll(() => jsonAlert.textContent()).toBe('');
    const pidBefore = panel.corePid();
    expect(pidBefore).not.toBeNull();
    await save.click();
    await expect
      .poll(() => notifications(page).textContent(), { timeout: 20_000 })
      .toContain('The core restarted on the new configuration and is running');
    const after = JSON.parse((await panel.api('POST', '/panel/core')).obj.coreSetting);
    expect(after.log.loglevel).toBe('info');
    expect((await panel.api('GET', '/panel/api/server/status')).obj.core.state).toBe('running');
    expect(panel.corePid()).not.toBe(pidBefore);
    await expect.poll(() => page.getByText('Everything is saved').count()).toBe(1);

    // A routing rule added in the Routing tab is in the editor's text, then stored by Save.
    await page.getByRole('tab', { name: 'Routing' }).click();
    expect(await page.getByRole('tab', { name: 'Routing' }).getAttribute('aria-selected')).toBe('true');
    const rulesBefore = after.routing.rules.length;
    await page.getByRole('combobox', { name: 'Outbound tag' }).fill('blocked');
    await page.getByRole('combobox', { name: 'Domains' }).fill('ads.example.org, domain:example.net');
    await page.getByRole('combobox', { name: 'Network' }).selectOption('tcp');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => notifications(page).textContent()).toContain(`Rule ${rulesBefore + 1} added`);
    await expect.poll(() => page.getByRole('button', { name: `Delete rule ${rulesBefore + 1}` }).count()).toBe(1);
    // Moved up one place and back: the order buttons work on the same template.
    await page.getByRole('button', { name: `Move rule ${rulesBefore + 1} up` }).click();
    await expect.poll(() => page.getByRole('row').nth(rulesBefore).textContent()).toContain('ads.example.org');
    await page.getByRole('button', { name: `Move rule ${rulesBefore} down` }).click();
    await expect
      .poll(() =>
        page
          .getByRole('row')
          .nth(rulesBefore + 1)
          .textContent(),
      )
      .toContain('ads.example.org');
    await page.screenshot({ path: shotPath('core-config-routing-desktop'), fullPage: true });

    await page.getByRole('tab', { name: 'JSON' }).click();
    await editor(page).waitFor();
    // The rules are near the end of the template: the caret at the end scrolls them into the editor's view.
    await editor(page).click();
    await page.keyboard.press('Control+End');
    await expect.poll(async () => (await editorLines(page)).join('\n')).toContain('"ads.example.org"');
    expect(await editor(page).textContent()).toContain('"domain:example.net"');
    expect(await page.getByText('Unsaved changes').count()).toBe(1);
    await save.click();
    await expect.poll(() => page.getByText('Everything is saved').count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => notifications(page).textContent()).toContain('The core restarted');
    const rules = JSON.parse((await panel.api('POST', '/panel/core')).obj.coreSetting).routing.rules;
    expect(rules).toHaveLength(rulesBefore + 1);
    expect(rules[rulesBefore]).toEqual({
      type: 'field',
      outboundTag: 'blocked',
      domain: ['ads.example.org', 'domain:example.net'],
      network: 'tcp',
    });
    // The running config (getConfigJson) carries it too.
    const running = (await panel.api('GET', '/panel/api/server/getConfigJson')).obj;
    expect(JSON.stringify(running.routing.rules)).toContain('ads.example.org');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('journey 3: test the direct outbound through the core and see its latency; an outbound the core refuses shows its error', async () => {
    const { context, page, errors } = await openPage(browser);
    await openCore(page, panel);
    await page.getByRole('tab', { name: 'Outbounds' }).click();
    // The probe fetches the test URL through the outbound: a local target keeps the test offline.
    await page.getByRole('textbox', { name: 'Test URL' }).fill(target.url('/bytes/16'));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notifications(page).textContent(), { timeout: 20_000 }).toContain('Saved');
    expect((await panel.api('POST', '/panel/core')).obj.outboundTestUrl).toBe(target.url('/bytes/16'));

    await page.getByRole('button', { name: 'Test direct' }).click();
    const row = page.getByRole('row').filter({ hasText: 'freedom' });
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toMatch(/\d+ ms/);
    await expect.poll(() => notifications(page).textContent()).toMatch(/direct: \d+ ms/);
    await page.screenshot({ path: shotPath('core-config-outbounds-desktop'), fullPage: true });

    // An outbound the core does not know: the structure is fine, the core's test refuses it and says why.
    await page.getByRole('button', { name: 'Add outbound' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add outbound' });
    await dialog
      .getByRole('textbox', { name: 'Outbound JSON' })
      .fill(JSON.stringify({ tag: 'odd', protocol: 'no-such-protocol', settings: {} }));
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => page.getByRole('button', { name: 'Test odd' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Save' }).click();
    const refused = page.getByRole('alert', { name: 'The core refused this configuration' });
    await expect
      .poll(() => refused.textContent(), { timeout: 20_000 })
      .toMatch(/rejected the config.*no-such-protocol/s);
    expect(JSON.parse((await panel.api('POST', '/panel/core')).obj.coreSetting).outbounds).not.toContainEqual(
      expect.objectContaining({ tag: 'odd' }),
    );
    await page.screenshot({ path: shotPath('core-config-refused-desktop'), fullPage: true });
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Test odd' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('DNS, balancers and the default diff edit the same in-memory template; Discard changes restores it', async () => {
    const { context, page, errors } = await openPage(browser);
    await openCore(page, panel);
    await page.getByRole('tab', { name: 'DNS' }).click();
    await page.getByRole('textbox', { name: 'DNS JSON' }).fill('{ "servers": ["1.1.1.1"] }');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('tab', { name: 'Balancers' }).click();
    await page.getByRole('textbox', { name: 'Balancers JSON' }).fill('{ "tag": "lb" }');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(() => page.locator('#cc-sec-array-error').textContent())
      .toBe('This section must be a JSON array.');
    await page.getByRole('textbox', { name: 'Balancers JSON' }).fill('[{ "tag": "lb", "selector": ["direct"] }]');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('#cc-sec-array-error').textContent()).toBe('');

    // The routing form now offers the balancer as a target.
    await page.getByRole('tab', { name: 'Routing' }).click();
    await page.getByRole('combobox', { name: 'Send to' }).selectOption('balancerTag');
    await expect
      .poll(() => page.locator('#cc-tags option').evaluateAll((o) => o.map((x) => x.getAttribute('value'))))
      .toEqual(['lb']);

    await page.getByRole('tab', { name: 'Default and diff' }).click();
    const diff = page.getByLabel('Difference from the default', { exact: true }).last();
    await expect.poll(() => diff.textContent()).toContain('"1.1.1.1"');
    expect(await diff.textContent()).toContain('"selector"');
    await page.screenshot({ path: shotPath('core-config-diff-desktop'), fullPage: true });

    await page.getByRole('tab', { name: 'JSON' }).click();
    await editor(page).click();
    await page.keyboard.press('Control+End');
    await expect.poll(async () => (await editorLines(page)).join('\n')).toContain('"1.1.1.1"');
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await expect.poll(() => page.getByText('Everything is saved').count()).toBe(1);
    // The editor takes the restored text on its next update, a frame after the saved-state line changes.
    await page.keyboard.press('Control+End');
    await expect.poll(async () => (await editorLines(page)).join('\n')).not.toContain('"1.1.1.1"');
    expect(JSON.parse((await panel.api('POST', '/panel/core')).obj.coreSetting).dns).toBeUndefined();
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('versions and geo: a custom geo source the panel cannot download shows its reason; a failed geo update says why', async () => {
    const { context, page } = await openPage(browser);
    await openCore(page, panel);
    await page.getByRole('tab', { name: 'Versions and geo' }).click();
    await page.getByRole('button', { name: 'Add source' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add source' });
    await dialog.getByRole('combobox', { name: 'Type' }).selectOption('geoip');
    await dialog.getByRole('textbox', { name: 'Alias' }).fill('My List');
    // A loopback URL: the panel's guarded fetch refuses it, and the dialog shows the panel's own message.
    await dialog
      .getByRole('textbox', { name: 'URL' })
      .fill(target.url('/bytes/4096').replace('bytes/4096', 'list.dat'));
    await dialog.getByRole('button', { name: 'Save and download' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent(), { timeout: 20_000 }).not.toBe('');
    const reason = (await dialog.getByRole('alert').textContent()) ?? '';
    expect(reason).toMatch(/refused|private|loopback/);
    expect(await dialog.isVisible()).toBe(true);
    expect((await panel.api('GET', '/panel/api/custom-geo/list')).obj).toEqual([]);
    await page.screenshot({ path: shotPath('core-config-geo-refused-desktop') });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);

    // This machine has no way to GitHub: the geo update fails and the page says why next to the button.
    await page.getByRole('button', { name: 'Update geo files' }).click();
    const result = page
      .getByRole('alert')
      .filter({ hasText: /geo|download|resolve|fetch/i })
      .last();
    await expect.poll(() => result.count(), { timeout: 40_000 }).toBeGreaterThan(0);
    await context.close();
  }, 90_000);

  it('in Persian the page is right to left, its tabs translated, the editor left to right', async () => {
    const { context, page, errors } = await openPage(browser, PHONE);
    await openCore(page, panel);
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fa');
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await expect.poll(() => page.getByRole('tab', { name: 'مسیریابی' }).count()).toBe(1);
    const ed = page.getByRole('textbox', { name: 'پیکربندی هسته' });
    await ed.waitFor();
    expect(await ed.evaluate((el) => getComputedStyle(el).direction)).toBe('ltr');
    await page.screenshot({ path: shotPath('core-config-json-fa-phone') });
    await page.getByRole('tab', { name: 'مسیریابی' }).click();
    await page.screenshot({ path: shotPath('core-config-routing-fa-phone'), fullPage: true });
    expect(await axeProblems(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('the editor chunk loads on the Core page only, never on the Overview', async () => {
    const { context, page, requests } = await openPage(browser);
    await loginUi(page, panel, '');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    await expect.poll(() => requests.some((u) => /\/assets\/history-[^/]+\.js$/.test(u))).toBe(true);
    await page.waitForLoadState('networkidle');
    expect(requests.filter((u) => /core-config/.test(u))).toEqual([]);
    // The same recorder sees it once the Core page opens (so the pattern above is the right one).
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Core' }).click();
    await editor(page).waitFor();
    expect(requests.some((u) => /\/assets\/core-config-editor-[^/]+\.js$/.test(u))).toBe(true);
    await context.close();
  }, 60_000);

  for (const size of ['desktop', 'phone'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`axe-core finds no serious or critical problem on any tab (${size}, ${scheme})`, async () => {
        const { context, page, errors } = await openPage(browser, {
          ...(size === 'phone' ? PHONE : DESKTOP),
          colorScheme: scheme,
        });
        await openCore(page, panel);
        const problems: string[] = [];
        for (const name of TABS) {
          const tab = page.getByRole('tab', { name, exact: true });
          await tab.click();
          expect(await tab.getAttribute('aria-selected')).toBe('true');
          await page.getByRole('tabpanel').waitFor();
          if (name === 'Versions and geo')
            await expect
              .poll(() => page.getByText(/Running version|could not be loaded/).count(), { timeout: 15_000 })
              .toBeGreaterThan(0);
          await page.waitForTimeout(150);
          for (const p of await axeProblems(page)) problems.push(`${name}: ${p}`);
          const slug = name.toLowerCase().replace(/[^a-z]+/g, '-');
          await page.screenshot({ path: shotPath(`core-config-${slug}-${scheme}-${size}`), fullPage: true });
        }
        expect(problems).toEqual([]);
        expect(errors).toEqual([]);
        await context.close();
      }, 90_000);
    }
  }
});
