// The inbounds page in real Chromium: every protocol family through the form (checked in what the API stored),
// keys from the server's generators, edit, clone, export → import, the panel's message next to the field it names,
// an inbound of 20,000 clients whose clients open paged on the clients page, the node an inbound is bound to
// (list and form), and the page in Persian (right to left).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { killAll, startPanel, type Panel } from '../support/index.js';
import { axeProblems, browserMissing, DESKTOP, launch, loginUi, openPage, PHONE, shotPath } from './support.js';

const missing = browserMissing('inbounds UI');
const BIG = 20_000;

describe.skipIf(missing)('inbounds page in Chromium', () => {
  let panel: Panel;
  let browser: Browser;
  let nextPort = 31_000 + Math.floor(Math.random() * 1000);
  const stored = async (remark: string) =>
    (await panel.api('GET', '/panel/api/inbounds/list')).obj.find((i: any) => i.remark === remark);

  beforeAll(async () => {
    panel = await startPanel({ coreBin: '/nonexistent/core' });
    // The large inbound and its clients, seeded once for the file.
    const big = await panel.api('POST', '/panel/api/inbounds/add', {
      protocol: 'vless',
      port: 29_999,
      remark: 'Big one',
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp' },
    });
    if (!big.success) throw new Error(big.msg);
    for (let start = 0; start < BIG; start += 10_000) {
      const batch = Array.from({ length: 10_000 }, (_, k) => ({
        client: { email: `big-${String(start + k).padStart(5, '0')}@x` },
        inboundIds: [big.obj.id],
      }));
      const r = await panel.api('POST', '/panel/api/clients/bulkCreate', batch);
      if (!r.success || r.obj.created !== 10_000) throw new Error(`bulkCreate: ${r.msg}`);
    }
    browser = await launch();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await killAll();
  });

  async function openForm(page: Page, button = 'Add inbound', title = 'Add inbound'): Promise<Locator> {
    await page.getByRole('button', { name: button }).click();
    const dialog = page.getByRole('dialog', { name: title });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    return dialog;
  }
  async function save(dialog: Locator) {
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(false);
  }

  it('adds every protocol family through the form, with generated keys, as the API stores it', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/inbounds');

    // vless + reality with X25519 and ML-DSA-65 keys and VLESS encryption (ML-KEM-768).
    let d = await openForm(page);
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('vless-pq');
    await d.getByRole('combobox', { name: 'Security' }).selectOption('reality');
    await expect.poll(() => d.getByRole('textbox', { name: 'Public key' }).inputValue()).toMatch(/^[\w-]{43}$/);
    await d.getByRole('button', { name: 'Generate ML-DSA-65 keys' }).click();
    await expect.poll(() => d.getByText('ML-DSA-65 set').isVisible()).toBe(true);
    await d.getByRole('button', { name: 'Generate VLESS encryption' }).click();
    await expect
      .poll(() => d.getByRole('textbox', { name: 'Decryption (server)' }).inputValue())
      .toMatch(/^mlkem768x25519plus\.native\.600s\./);
    expect(await axeProblems(page)).toEqual([]);
    await page.screenshot({ path: shotPath('inbound-form-reality-desktop') });
    await save(d);
    let ib = await stored('vless-pq');
    expect(ib.streamSettings.security).toBe('reality');
    expect(ib.streamSettings.realitySettings.mldsa65Seed).toMatch(/\S{20,}/);
    expect(ib.streamSettings.realitySettings.settings.mldsa65Verify).toMatch(/\S{20,}/);
    expect(ib.settings.decryption).toMatch(/^mlkem768x25519plus\./);

    // vmess over ws with a path.
    d = await openForm(page);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('vmess');
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('vmess-ws');
    await d.getByRole('combobox', { name: 'Transport' }).selectOption('ws');
    await d.getByRole('textbox', { name: 'Path' }).fill('/vm');
    await save(d);
    ib = await stored('vmess-ws');
    expect(ib.protocol).toBe('vmess');
    expect(ib.streamSettings).toMatchObject({ network: 'ws', wsSettings: { path: '/vm' } });

    // trojan over grpc with TLS (certificate paths) and ECH keys.
    d = await openForm(page);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('trojan');
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('trojan-grpc');
    await d.getByRole('combobox', { name: 'Transport' }).selectOption('grpc');
    await d.getByRole('textbox', { name: 'Service name' }).fill('tg');
    await d.getByRole('combobox', { name: 'Security' }).selectOption('tls');
    await d.getByRole('textbox', { name: 'Server name (SNI)' }).fill('t.example.com');
    await d.getByRole('textbox', { name: 'Certificate file' }).fill('/etc/ssl/t.crt');
    await d.getByRole('textbox', { name: 'Key file' }).fill('/etc/ssl/t.key');
    await d.getByRole('button', { name: 'Generate ECH keys' }).click();
    await expect.poll(() => d.getByText('ECH keys set').isVisible()).toBe(true);
    await save(d);
    ib = await stored('trojan-grpc');
    expect(ib.streamSettings).toMatchObject({
      network: 'grpc',
      security: 'tls',
      grpcSettings: { serviceName: 'tg' },
      tlsSettings: { serverName: 't.example.com', certificates: [{ certificateFile: '/etc/ssl/t.crt' }] },
    });
    expect(ib.streamSettings.tlsSettings.echServerKeys).toMatch(/\S{20,}/);

    // shadowsocks 2022 with a 16-byte key for AES-128.
    d = await openForm(page);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('shadowsocks');
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('ss-128');
    await d.getByRole('combobox', { name: 'Method' }).selectOption('2022-blake3-aes-128-gcm');
    await save(d);
    ib = await stored('ss-128');
    expect(ib.settings.method).toBe('2022-blake3-aes-128-gcm');
    expect(Buffer.from(ib.settings.password, 'base64')).toHaveLength(16);

    // socks with a password, dokodemo to a target, wireguard with a generated key, kcp transport.
    d = await openForm(page);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('socks');
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('socks-auth');
    await d.getByRole('combobox', { name: 'Method' }).selectOption('password');
    await d.getByRole('textbox', { name: 'User' }).fill('alice');
    await d.getByRole('textbox', { name: 'Password' }).fill('s3cret');
    await save(d);
    expect((await stored('socks-auth')).settings).toMatchObject({ auth: 'password', accounts: [{ user: 'alice' }] });

    d = await openForm(page);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('dokodemo');
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('doko');
    await d.getByRole('textbox', { name: 'Target address' }).fill('10.1.2.3');
    await d.getByRole('spinbutton', { name: 'Target port' }).fill('8443');
    await save(d);
    expect((await stored('doko')).settings).toMatchObject({ address: '10.1.2.3', port: 8443 });

    d = await openForm(page);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('wireguard');
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('wg');
    await d.getByRole('button', { name: 'Generate WireGuard key' }).click();
    await expect.poll(() => d.getByRole('textbox', { name: 'Private key' }).inputValue()).toMatch(/\S{40,}/);
    await save(d);
    expect((await stored('wg')).settings.secretKey).toMatch(/\S{40,}/);

    d = await openForm(page);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('vless');
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('vless-kcp');
    await d.getByRole('combobox', { name: 'Transport' }).selectOption('kcp');
    await d.getByRole('combobox', { name: 'Header type' }).selectOption('wechat-video');
    await save(d);
    expect((await stored('vless-kcp')).streamSettings).toMatchObject({
      network: 'kcp',
      kcpSettings: { header: { type: 'wechat-video' } },
    });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the panel message next to the field it names and keeps the dialog open', async () => {
    const { context, page } = await openPage(browser);
    await loginUi(page, panel, 'panel/inbounds');
    const d = await openForm(page);
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill('70000');
    await d.getByRole('button', { name: 'Save' }).click();
    const port = d.getByRole('spinbutton', { name: 'Port', exact: true });
    await expect.poll(() => port.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await port.getAttribute('aria-describedby'))!;
    expect(await page.locator(`#${describedBy}`).textContent()).toMatch(/^port: /);
    expect(await d.getByRole('alert').textContent()).toMatch(/^port: /);
    expect(await d.isVisible()).toBe(true);
    await context.close();
  });

  it('edits, clones, exports and imports an inbound', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/inbounds');
    const original = await stored('vmess-ws');

    let d = await openForm(page, 'Edit vmess-ws', 'Edit vmess-ws');
    expect(await d.getByRole('textbox', { name: 'Path' }).inputValue()).toBe('/vm');
    await d.getByRole('textbox', { name: 'Remark' }).fill('vmess-ws-2');
    await d.getByRole('textbox', { name: 'Path' }).fill('/vm2');
    await save(d);
    const edited = await stored('vmess-ws-2');
    expect(edited.id).toBe(original.id);
    expect(edited.port).toBe(original.port);
    expect(edited.streamSettings.wsSettings.path).toBe('/vm2');

    d = await openForm(page, 'Clone vmess-ws-2', 'Clone vmess-ws-2');
    expect(await d.getByRole('textbox', { name: 'Remark' }).inputValue()).toBe('vmess-ws-2 copy');
    await save(d);
    const clone = await stored('vmess-ws-2 copy');
    expect(clone.id).not.toBe(original.id);
    expect(clone.port).not.toBe(original.port);
    expect(clone.streamSettings.wsSettings.path).toBe('/vm2');

    // Export: the dialog shows the full inbound; import it back on another port.
    await page.getByRole('button', { name: 'Export vmess-ws-2 copy' }).click();
    const ex = page.getByRole('dialog', { name: 'Export vmess-ws-2 copy' });
    const text = ex.getByRole('textbox', { name: 'Inbound JSON' });
    await expect.poll(() => text.inputValue()).toMatch(/"protocol": "vmess"/);
    const exported = JSON.parse(await text.inputValue());
    await ex.getByRole('button', { name: 'Close' }).click();
    exported.port = ++nextPort;
    exported.remark = 'imported';
    await page.getByRole('button', { name: 'Import inbound' }).click();
    const im = page.getByRole('dialog', { name: 'Import inbound' });
    await im.getByRole('textbox', { name: 'Inbound JSON' }).fill(JSON.stringify(exported));
    await im.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => im.isVisible()).toBe(false);
    const imported = await stored('imported');
    expect(imported.port).toBe(exported.port);
    expect(imported.streamSettings.wsSettings.path).toBe('/vm2');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'imported' }).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it(`opens the clients of an inbound with ${BIG.toLocaleString('en')} clients paged, on a phone too`, async () => {
    for (const opts of [DESKTOP, PHONE]) {
      const { context, page, errors } = await openPage(browser, opts);
      await loginUi(page, panel, 'panel/inbounds');
      const row = page.getByRole('row').filter({ hasText: 'Big one' });
      await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
      expect(await row.getByRole('link', { name: '20,000 clients of Big one' }).textContent()).toBe('20,000');
      const started = Date.now();
      await row.getByRole('link', { name: 'Clients of Big one' }).click();
      const pager = page.getByRole('navigation', { name: 'Pages' });
      await expect.poll(() => pager.textContent(), { timeout: 10_000 }).toContain('20,000 of');
      const took = Date.now() - started;
      expect(new URL(page.url()).searchParams.get('inbound')).toMatch(/^\d+$/);
      // Paged by the server: only one page of rows is in the document.
      const rendered = await page.locator('tbody tr').count();
      expect(rendered).toBeGreaterThan(0);
      expect(rendered).toBeLessThanOrEqual(200);
      console.log(`inbound of ${BIG} clients → first page of its clients in ${took} ms, ${rendered} rows rendered`);
      expect(took).toBeLessThan(8000);
      await page.screenshot({ path: shotPath(`inbound-clients-${opts === PHONE ? 'phone' : 'desktop'}`) });
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('bulk create N clients from the clients page; a second run names every duplicate it skipped', async () => {
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/clients');
    const create = async (count: number, first: number) => {
      await page.getByRole('button', { name: 'Bulk create' }).click();
      const d = page.getByRole('dialog', { name: 'Bulk create' });
      await d.getByRole('textbox', { name: 'Prefix' }).fill('team-');
      await d.getByRole('spinbutton', { name: 'Count' }).fill(String(count));
      await d.getByRole('spinbutton', { name: 'First number' }).fill(String(first));
      await d.getByRole('group', { name: 'Inbounds' }).getByRole('checkbox', { name: 'vless-pq' }).check();
      await d.getByRole('spinbutton', { name: 'Traffic limit (GB, 0 = unlimited)' }).fill('5');
      await d.getByRole('button', { name: 'Create' }).click();
      await expect.poll(() => d.isVisible(), { timeout: 20_000 }).toBe(false);
      return page.getByRole('status', { name: 'Bulk result' });
    };
    let result = await create(1500, 1);
    await expect.poll(() => result.textContent()).toContain('1,500 created, 0 skipped');
    await page.getByRole('searchbox', { name: 'Search' }).fill('team-');
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect.poll(() => pager.textContent(), { timeout: 10_000 }).toContain('1,500 of');
    const one = (await panel.api('GET', '/panel/api/clients/get/team-0042')).obj;
    expect(one.client.totalGB).toBe(5 * 1024 ** 3);
    expect(one.inboundIds).toEqual([(await stored('vless-pq')).id]);

    result = await create(3, 1499);
    await expect.poll(() => result.textContent()).toContain('1 created, 2 skipped');
    const skipped = page.getByRole('list', { name: 'Skipped clients' });
    expect(await skipped.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(/^team-1499: .+/),
      expect.stringMatching(/^team-1500: .+/),
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the inbounds list and form on a 390×844 phone, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page } = await openPage(browser, { ...PHONE, colorScheme: scheme });
      await loginUi(page, panel, 'panel/inbounds');
      await expect.poll(() => page.getByRole('row').filter({ hasText: 'Big one' }).count()).toBe(1);
      await page.screenshot({ path: shotPath(`inbounds-${scheme}-phone`), fullPage: true });
      const d = await openForm(page);
      await d.getByRole('combobox', { name: 'Security' }).selectOption('tls');
      await page.screenshot({ path: shotPath(`inbound-form-${scheme}-phone`) });
      expect(await axeProblems(page)).toEqual([]);
      await context.close();
    }
  });

  it('binds an inbound to a node in the form; the list names the node (a link to the nodes page)', async () => {
    const node = await panel.api('POST', '/panel/api/nodes/add', {
      name: 'edge-1',
      address: '203.0.113.7',
      port: 2053,
      enable: false,
    });
    expect(node.success, node.msg).toBe(true);
    const { context, page, errors } = await openPage(browser);
    await loginUi(page, panel, 'panel/inbounds');
    let d = await openForm(page);
    // Only protocols that may run on a node offer the choice.
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('socks');
    expect(await d.getByRole('combobox', { name: 'Node' }).count()).toBe(0);
    await d.getByRole('combobox', { name: 'Protocol' }).selectOption('vless');
    const nodeBox = d.getByRole('combobox', { name: 'Node' });
    await expect.poll(() => nodeBox.locator('option').allTextContents()).toEqual(['local', 'edge-1']);
    await nodeBox.selectOption({ label: 'edge-1' });
    await d.getByRole('spinbutton', { name: 'Port', exact: true }).fill(String(++nextPort));
    await d.getByRole('textbox', { name: 'Remark' }).fill('on-edge');
    await save(d);
    expect((await stored('on-edge')).nodeId).toBe(node.obj.id);

    const row = page.getByRole('row').filter({ hasText: 'on-edge' });
    const link = row.getByRole('link', { name: 'Node of on-edge: edge-1' });
    await expect.poll(() => link.count()).toBe(1);
    expect(new URL((await link.getAttribute('href'))!, panel.url).pathname).toMatch(/\/panel\/nodes$/);
    expect(await page.getByRole('row').filter({ hasText: 'Big one' }).getByText('local').count()).toBe(1);
    await link.scrollIntoViewIfNeeded();
    await page.screenshot({ path: shotPath('inbounds-nodes-desktop') });

    // Edit keeps the binding shown; back to local unbinds it.
    d = await openForm(page, 'Edit on-edge', 'Edit on-edge');
    expect(await d.getByRole('combobox', { name: 'Node' }).inputValue()).toBe(String(node.obj.id));
    await d.getByRole('combobox', { name: 'Node' }).selectOption({ label: 'local' });
    await save(d);
    expect((await stored('on-edge')).nodeId).toBeNull();
    await expect.poll(() => row.getByRole('link', { name: /^Node of/ }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('speaks Persian right to left: the add dialog is translated and passes axe', async () => {
    for (const opts of [DESKTOP, PHONE]) {
      const size = opts === PHONE ? 'phone' : 'desktop';
      const { context, page, errors } = await openPage(browser, opts);
      await loginUi(page, panel, 'panel/inbounds');
      await expect.poll(() => page.getByRole('row').filter({ hasText: 'Big one' }).count()).toBe(1);
      await page.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'فارسی' });
      await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('rtl');
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('fa');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('ورودی‌ها');
      const row = page.getByRole('row').filter({ hasText: 'Big one' });
      expect(await row.getByRole('link', { name: '۲۰٬۰۰۰ کاربرِ Big one' }).textContent()).toBe('۲۰٬۰۰۰');
      expect(await row.getByRole('switch', { name: 'فعال' }).isChecked()).toBe(true);
      await page.screenshot({ path: shotPath(`inbounds-fa-${size}`) });

      const d = await openForm(page, 'افزودن ورودی', 'افزودن ورودی');
      for (const name of ['پروتکل', 'امنیت', 'انتقال', 'نود'])
        expect(await d.getByRole('combobox', { name, exact: true }).count(), name).toBe(1);
      expect(await d.getByRole('spinbutton', { name: 'پورت', exact: true }).count()).toBe(1);
      expect(await d.getByRole('textbox', { name: 'یادداشت' }).count()).toBe(1);
      expect(await d.getByRole('textbox', { name: 'نشانی شنود' }).getAttribute('placeholder')).toBe('همهٔ نشانی‌ها');
      expect(await d.getByRole('button', { name: 'ذخیره' }).count()).toBe(1);
      expect(await d.getByRole('button', { name: 'انصراف' }).count()).toBe(1);
      await d.getByRole('combobox', { name: 'امنیت' }).selectOption('reality');
      await expect.poll(() => d.getByRole('textbox', { name: 'کلید عمومی' }).inputValue()).toMatch(/^[\w-]{43}$/);
      expect(await d.getByRole('button', { name: 'تولید کلیدهای ML-DSA-65' }).count()).toBe(1);
      expect(await axeProblems(page)).toEqual([]);
      await page.screenshot({ path: shotPath(`inbound-form-fa-${size}`) });

      // Back to English: the dialog closes and the page is left to right again.
      await page.keyboard.press('Escape');
      await expect.poll(() => d.isVisible()).toBe(false);
      await page.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'English' });
      await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('ltr');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbounds');
      expect(await page.getByRole('button', { name: 'Add inbound' }).count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
