// The provider integrations in the built panel with the real core (Debian's V2Ray 4.34) and the local stand-ins
// of both services: V2Ray has no WireGuard outbound, so the answers name the core needed and the template the
// core runs stays valid (a restart still succeeds) — and the same outbound does break V2Ray's config check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, killAll, startPanel, testCoreBin, type Panel } from './support/index.js';
import { startStandins, VPN_PRIVATE_KEY, VPN_TOKEN, type Standins } from '../support/provider-standins.js';

const bin = testCoreBin();

describe.skipIf(!bin)('provider integrations with the V2Ray core', () => {
  let panel: Panel;
  let w: Standins;

  beforeAll(async () => {
    w = await startStandins();
    panel = await startPanel({
      coreBin: bin!,
      env: {
        PANEL_PROVIDER_A_URL: w.tunnelBase,
        PANEL_PROVIDER_B_URL: `${w.url}/vpn`,
        PANEL_PROVIDER_ALLOW_PRIVATE: 'true',
        PANEL_LOG_LEVEL: 'debug',
      },
    });
    await eventually(() => panel.corePid(), 5000);
  }, 60_000);
  afterAll(async () => {
    await panel?.stop();
    await w?.close();
    await killAll();
  });

  it('provider-a registers, says Xray is needed, and leaves a config V2Ray still runs', async () => {
    const pid = panel.corePid();
    const r = await panel.api('POST', 'panel/core/provider-a/reg', new URLSearchParams({}));
    expect(r.success).toBe(true);
    expect(r.obj.applied).toBe(false);
    expect(r.msg).toMatch(/WireGuard outbounds need the Xray core; the running core is V2Ray 4\.\d+/);
    expect(w.tunnel.devices.size).toBe(1);
    const cfg = await panel.api('GET', 'panel/api/server/getConfigJson');
    expect(cfg.obj.outbounds.some((o: any) => o.protocol === 'wireguard')).toBe(false);
    expect(panel.corePid()).toBe(pid);
    const restart = await panel.api('POST', 'panel/api/server/restartCoreService');
    expect(restart.success).toBe(true);

    // Without the refusal: the same config with the outbound the service implies is one V2Ray rejects.
    const ob = { ...r.obj.outbound, settings: { ...r.obj.outbound.settings, secretKey: VPN_PRIVATE_KEY } };
    const dir = mkdtempSync(join(tmpdir(), 'panel-wg-'));
    try {
      writeFileSync(join(dir, 'c.json'), JSON.stringify({ ...cfg.obj, outbounds: [...cfg.obj.outbounds, ob] }));
      const test = spawnSync(bin!, ['-test', '-config', join(dir, 'c.json')], { encoding: 'utf8' });
      expect(test.status).not.toBe(0);
      expect(`${test.stdout}${test.stderr}`).toMatch(/wireguard/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('provider-b refuses to add server outbounds under V2Ray and changes nothing', async () => {
    expect(
      (await panel.api('POST', 'panel/core/provider-b/setKey', new URLSearchParams({ key: VPN_PRIVATE_KEY }))).success,
    ).toBe(true);
    const before = (await panel.api('POST', 'panel/core/')).obj.coreSetting;
    const r = await panel.api(
      'POST',
      'panel/core/provider-b/servers',
      new URLSearchParams({ countryId: '81', serverIds: '947' }),
    );
    expect(r).toMatchObject({ success: false });
    expect(r.msg).toMatch(/^WireGuard outbounds need the Xray core/);
    expect((await panel.api('POST', 'panel/core/')).obj.coreSetting).toBe(before);
    const list = await panel.api('POST', 'panel/core/provider-b/servers', new URLSearchParams({ countryId: '81' }));
    expect(list.obj.servers.map((s: any) => s.id)).toEqual([1012, 947]);
  });

  it('keeps tokens and keys out of the panel log (debug level, every request logged)', async () => {
    expect(
      (await panel.api('POST', 'panel/core/provider-b/reg', new URLSearchParams({ token: VPN_TOKEN }))).success,
    ).toBe(true);
    const log = panel.proc.output();
    expect(log).toMatch(/"path":"\/panel\/core\/provider-b\/reg"/);
    const device = [...w.tunnel.devices.values()][0]!;
    for (const secret of [device.token, VPN_TOKEN, VPN_PRIVATE_KEY]) expect(log).not.toContain(secret);
    const logs = await panel.api('POST', 'panel/api/server/logs/10000', { level: 'debug' });
    for (const secret of [device.token, VPN_TOKEN, VPN_PRIVATE_KEY]) expect(logs.obj).not.toContain(secret);
  });
});
