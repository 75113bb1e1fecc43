// The subscription info page in a real browser (Debian's headless chromium through playwright-core): it shows
// the client's name, the traffic figures and one visible QR code per link, works on a phone-sized screen, and no
// request leaves the page's own origin.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { freePorts, startPanel, type Panel } from './subscription-support.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const missing = !existsSync(CHROMIUM);
if (missing && process.env.CI === 'true')
  throw new Error(`CI=true but ${CHROMIUM} is missing: the subscription page suite cannot be skipped`);
if (missing) console.log(`${CHROMIUM} is missing: skipping the subscription page browser suite`);

const GiB = 1024 ** 3;

describe.skipIf(missing)('subscription page in headless chromium', () => {
  let panel: Panel;
  let browser: Browser;
  let pageUrl = '';
  let linkCount = 0;

  beforeAll(async () => {
    panel = await startPanel();
    const ports = await freePorts(3);
    const ids: number[] = [];
    for (const [i, protocol] of (['vless', 'vmess', 'trojan'] as const).entries()) {
      const r = await panel.api('POST', '/panel/api/inbounds/add', {
        protocol,
        port: ports[i],
        remark: `Node ${i + 1} <b>`,
        settings: protocol === 'vless' ? { decryption: 'none' } : {},
        streamSettings: {
          network: 'tcp',
          security: 'none',
          ...(i === 0
            ? {
                externalProxy: [
                  { forceTls: 'same', dest: 'cdn.example.com', port: 443, remark: 'CDN' },
                  { forceTls: 'same', dest: 'edge.example.com', port: 8443, remark: 'Edge' },
                ],
              }
            : {}),
        },
      });
      if (!r.success) throw new Error(`inbound add failed: ${r.msg}`);
      ids.push(r.obj.id);
    }
    const add = await panel.api('POST', '/panel/api/clients/add', {
      client: {
        email: 'Zoë<phone>',
        subId: 'page-sub',
        totalGB: 10 * GiB,
        expiryTime: Date.now() + 30 * 86_400_000,
        enable: true,
      },
      inboundIds: ids,
    });
    if (!add.success) throw new Error(`client add failed: ${add.msg}`);
    const t = await panel.api('POST', `/panel/api/clients/updateTraffic/${encodeURIComponent('Zoë<phone>')}`, {
      upload: GiB,
      download: GiB / 2,
    });
    if (!t.success) throw new Error(`updateTraffic failed: ${t.msg}`);
    const feed = await (await fetch(`${panel.subUrl}sub/page-sub`)).text();
    linkCount = Buffer.from(feed, 'base64').toString('utf8').split('\n').length;
    pageUrl = `${panel.subUrl}sub/page-sub`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  });

  it('renders the name, traffic figures and one visible QR code per link, all from its own origin', async () => {
    expect(linkCount).toBe(4); // two external proxies + two inbounds
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const origin = new URL(pageUrl).origin;
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));

    const res = await page.goto(pageUrl, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toContain('text/html');

    await expect.poll(() => page.getByTestId('name').textContent()).toBe('Zoë<phone>');
    expect(await page.getByTestId('used').textContent()).toBe('1.50 GB');
    expect(await page.getByTestId('remaining').textContent()).toBe('8.50 GB');
    expect(await page.getByTestId('total').textContent()).toBe('10.00 GB');
    expect(await page.getByTestId('state').textContent()).toBe('Active');
    expect(await page.getByTestId('expiry').textContent()).toMatch(/in 29 d|in 30 d/);

    const qrs = page.locator('[data-testid="link"] svg.qr');
    expect(await qrs.count()).toBe(linkCount);
    for (let i = 0; i < linkCount; i++) {
      await qrs.nth(i).scrollIntoViewIfNeeded();
      expect(await qrs.nth(i).isVisible()).toBe(true);
      const box = await qrs.nth(i).boundingBox();
      expect(box!.width).toBeGreaterThan(100);
    }
    expect(await page.locator('[data-testid="link"] h3').allTextContents()).toEqual([
      'Node 1 <b>-Zoë<phone>-CDN',
      'Node 1 <b>-Zoë<phone>-Edge',
      'Node 2 <b>-Zoë<phone>',
      'Node 3 <b>-Zoë<phone>',
    ]);

    // The copy button works (clipboard API or its fallback) and the page fits a phone screen.
    const button = page.locator('[data-testid="link"] button').first();
    await button.click();
    await expect.poll(() => button.textContent()).toBe('Copied');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    expect(errors).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    for (const url of requests) expect(url.startsWith(`${origin}/`) || url.startsWith('data:'), url).toBe(true);
    await context.close();
  });
});
