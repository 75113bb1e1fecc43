// `npm run screenshots`: the built panel with a few inbounds and clients, every page of the UI in light and dark,
// desktop (1280x860) and phone (390x844), in English (docs/screenshots/<page>-<scheme>-<device>.png) and in
// Persian, right to left (docs/screenshots/<page>-fa-<scheme>-<device>.png).
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import { ADMIN, freePorts, killAll, startPanel } from '../test/e2e/support/index.js';
import { CHROMIUM, DESKTOP, PHONE } from '../test/e2e/ui/support.js';

const OUT = 'docs/screenshots';
mkdirSync(OUT, { recursive: true });
const GB = 1024 ** 3;
const core = process.env.PANEL_CORE_BIN || (existsSync('/usr/bin/v2ray') ? '/usr/bin/v2ray' : '/nonexistent/core');
const panel = await startPanel({ coreBin: core });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
  ],
});
try {
  const ports = await freePorts(2);
  const a = await panel.api('POST', '/panel/api/inbounds/add', {
    protocol: 'vless',
    port: ports[0],
    remark: 'Reality NL',
    enable: true,
    settings: { decryption: 'none' },
    streamSettings: { network: 'tcp', security: 'none' },
  });
  const b = await panel.api('POST', '/panel/api/inbounds/add', {
    protocol: 'trojan',
    port: ports[1],
    remark: 'Trojan WS',
    enable: true,
    settings: {},
    streamSettings: { network: 'ws', security: 'none' },
  });
  const now = Date.now();
  const clients = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'].map((n, i) => ({
    client: {
      email: `${n}@example.com`,
      enable: i !== 5,
      totalGB: i % 3 ? (10 + i * 5) * GB : 0,
      expiryTime: i % 2 ? now + (i * 9 + 3) * 86_400_000 : 0,
      group: i < 4 ? 'team' : '',
    },
    inboundIds: i % 2 ? [a.obj.id] : [a.obj.id, b.obj.id],
  }));
  await panel.api('POST', '/panel/api/clients/bulkCreate', clients);
  for (const [i, c] of clients.entries()) {
    await panel.api('POST', `/panel/api/clients/updateTraffic/${encodeURIComponent(c.client.email)}`, {
      upload: Math.round(i * 0.7 * GB),
      download: Math.round(i * 1.3 * GB),
    });
  }

  const shots: [string, string, ((p: Page) => Promise<void>)?][] = [
    ['overview', 'panel/'],
    ['inbounds', 'panel/inbounds'],
    ['clients', 'panel/clients'],
    ['groups', 'panel/groups'],
    ['nodes', 'panel/nodes'],
    ['core-config', 'panel/core-config', (p) => p.locator('.cc-editor:not([aria-busy])').waitFor()],
    ['settings', 'panel/settings'],
    ['logs', 'panel/logs'],
    [
      'client-links',
      'panel/clients',
      async (p) => {
        await p.getByRole('button', { name: /^(Links for|پیوندهای) alice@example.com$/ }).click();
        await p.locator('.qr').first().waitFor();
      },
    ],
    [
      'add-inbound',
      'panel/inbounds',
      async (p) => {
        await p.getByRole('button', { name: /^(Add inbound|افزودن ورودی)$/ }).click();
        await p.locator('dialog[open]').waitFor();
        // By the options' texts (protocol and security names are not translated), so this works in every language.
        const select = (name: string) => p.locator('dialog[open] select').filter({ hasText: name }).first();
        await select('vless').selectOption('vless');
        await select('reality').selectOption('reality');
        await p.waitForTimeout(300);
      },
    ],
  ];
  for (const lang of ['en', 'fa'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      for (const [device, opts] of [
        ['desktop', DESKTOP],
        ['phone', { ...PHONE, deviceScaleFactor: 1 }],
      ] as const) {
        const context = await browser.newContext({
          ...opts,
          colorScheme: scheme,
          locale: lang === 'fa' ? 'fa-IR' : 'en-US',
        });
        const page = await context.newPage();
        const file = (name: string) => `${OUT}/${name}${lang === 'en' ? '' : `-${lang}`}-${scheme}-${device}.png`;
        await page.goto(panel.url);
        await page.locator('button[type=submit]').waitFor();
        await page.screenshot({ path: file('login') });
        await page.locator('input[name=username]').fill(ADMIN.username);
        await page.locator('input[type=password]').fill(ADMIN.password);
        await page.locator('button[type=submit]').click();
        await page.waitForURL(/\/panel\//);
        for (const [name, url, act] of shots) {
          await page.goto(panel.url + url);
          await page.getByRole('heading', { level: 1 }).waitFor();
          await page.waitForTimeout(name === 'overview' ? 4500 : 500); // the overview waits for status messages and its charts
          if (act) await act(page);
          await page.screenshot({ path: file(name), fullPage: !act });
        }
        await context.close();
      }
    }
  }
  console.log(`wrote ${OUT}/*.png`);
} finally {
  await browser.close();
  await killAll();
}
process.exit(0);
