// The supervisor and the outbound probe against the real core binary (no panel around them).
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreSupervisor } from '../../host-agent/core/supervisor.js';
import { defaultTemplate } from '../../domain/core/template.js';
import {
  eventually,
  freePorts,
  killAll,
  pidAlive,
  startPanel,
  startTarget,
  testCoreBin,
  type Target,
} from './support/index.js';

const bin = testCoreBin();

describe.skipIf(!bin)('core supervisor with the real core', () => {
  let target: Target;
  let dataDir: string;
  let sv: CoreSupervisor;
  let apiPort: number;
  const states: string[] = [];

  beforeAll(async () => {
    target = await startTarget();
    dataDir = mkdtempSync(join(tmpdir(), 'sv-e2e-'));
    [apiPort] = (await freePorts(1)) as [number];
    sv = new CoreSupervisor({ bin: bin!, dataDir, onState: (s) => states.push(s.state) });
    await sv.init();
  });
  afterAll(async () => {
    await sv?.shutdown();
    await target?.close();
    await killAll();
  });

  it('detects the flavour and version from -version', () => {
    expect(sv.status()).toMatchObject({
      state: 'stopped',
      flavour: 'v2ray',
      version: expect.stringMatching(/^\d+\.\d+/),
    });
  });

  it('starts on a config written atomically with mode 0600', async () => {
    await sv.restart(defaultTemplate(apiPort));
    expect(sv.status().state).toBe('running');
    expect(statSync(sv.configPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(sv.configPath, 'utf8')).inbounds[0].port).toBe(apiPort);
    expect(states).toContain('running');
  });

  it('refuses an invalid config after a test run and keeps the running core on the old one', async () => {
    const pid = sv.status().pid;
    const bad = { ...defaultTemplate(apiPort), outbounds: [{ protocol: 'bogus' }] };
    await expect(sv.restart(bad)).rejects.toThrow(/invalid core config/);
    expect(sv.status()).toMatchObject({ state: 'running', pid });
    expect(JSON.parse(readFileSync(sv.configPath, 'utf8')).outbounds[0].protocol).toBe('freedom');
    expect(sv.output()).toMatch(/bogus/);
  });

  it('tests configs without switching', async () => {
    expect((await sv.test(defaultTemplate(apiPort))).ok).toBe(true);
    const r = await sv.test({ inbounds: [{ port: 1, protocol: 'nope' }] });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/nope/);
  });

  it('tests and writes a config far larger than a pipe buffer (5 MB, 30,000 clients) in pieces', async () => {
    const big = defaultTemplate(apiPort) as Record<string, any>;
    const clients = Array.from({ length: 30_000 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      email: `big${i}@x`,
    }));
    big.inbounds = [
      ...big.inbounds,
      { tag: 'big', listen: '127.0.0.1', port: 1, protocol: 'vmess', settings: { clients } },
    ];
    expect((await sv.test(big)).ok).toBe(true);
    const broken = { ...big, inbounds: [...big.inbounds, { port: 2, protocol: 'nope' }] };
    expect((await sv.test(broken)).ok).toBe(false);
    await sv.writeConfig(big);
    const written = JSON.parse(readFileSync(sv.configPath, 'utf8'));
    expect(written.inbounds[written.inbounds.length - 1].settings.clients).toHaveLength(30_000);
    expect(written).toEqual(JSON.parse(JSON.stringify(big)));
    await sv.writeConfig(defaultTemplate(apiPort)); // the running core's own config again
  }, 180_000); // V2Ray takes up to ~15 s to test 30,000 VMess users on a slow day of this VM, and it tests twice

  it('reads counters through StatsService', async () => {
    const stats = await sv.queryStats('inbound>>>api');
    expect(stats.map((s) => s.name)).toEqual(expect.arrayContaining(['inbound>>>api>>>traffic>>>uplink']));
  });

  it('probes an outbound: tcp dial and a full HTTP request through a temporary core', async () => {
    const ok = await sv.probeOutbound({
      outbound: { tag: 'x', protocol: 'freedom', settings: {} },
      allOutbounds: [],
      mode: '',
      allowPrivate: false,
      url: target.url('/bytes/10'),
    });
    expect(ok).toMatchObject({ success: true, error: '' });
    expect(ok.delay).toBeGreaterThanOrEqual(0);
    const [closed] = await freePorts(1);
    const vmess = {
      tag: 'v',
      protocol: 'vmess',
      settings: {
        vnext: [{ address: '127.0.0.1', port: closed, users: [{ id: 'b831381d-6324-4d53-ad4f-8cda48b30811' }] }],
      },
    };
    const bad = await sv.probeOutbound({
      outbound: vmess,
      allOutbounds: [],
      mode: '',
      allowPrivate: true,
      url: target.url('/bytes/10'),
    });
    expect(bad.success).toBe(false);
    const open = { ...vmess, settings: { vnext: [{ address: '127.0.0.1', port: target.port, users: [] }] } };
    const dial = await sv.probeOutbound({ outbound: open, allOutbounds: [], mode: 'tcp', allowPrivate: true, url: '' });
    expect(dial).toMatchObject({ success: true, error: '' });
    const refused = await sv.probeOutbound({
      outbound: vmess,
      allOutbounds: [],
      mode: 'tcp',
      allowPrivate: true,
      url: '',
    });
    expect(refused.success).toBe(false);
    expect(refused.error).toMatch(/ECONNREFUSED/);
    const chain = await sv.probeOutbound({
      outbound: { ...vmess, streamSettings: { sockopt: { dialerProxy: 'missing' } } },
      allOutbounds: [vmess],
      mode: 'tcp',
      allowPrivate: true,
      url: '',
    });
    expect(chain.error).toMatch(/dialerProxy "missing"/);
  });

  it('refuses to probe a private, loopback or metadata server without the opt-in, dialling nothing', async () => {
    let accepted = 0;
    const listener = createServer((sock) => {
      accepted++;
      sock.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
    const port = (listener.address() as AddressInfo).port;
    try {
      for (const address of ['127.0.0.1', 'localhost', '::ffff:127.0.0.1', '169.254.169.254', '10.0.0.1']) {
        for (const mode of ['tcp', ''] as const) {
          const outbound = { tag: 'v', protocol: 'vmess', settings: { vnext: [{ address, port, users: [] }] } };
          const r = await sv.probeOutbound({
            outbound,
            allOutbounds: [],
            mode,
            allowPrivate: false,
            url: target.url('/bytes/10'),
          });
          expect(r.success, `${address} ${mode}`).toBe(false);
          expect(r.error, `${address} ${mode}`).toMatch(/refused .*private, loopback or reserved.*allowPrivate/);
        }
      }
      expect(accepted).toBe(0);
    } finally {
      listener.close();
    }
  });

  it('stops, and refuses to stop twice', async () => {
    const pid = sv.status().pid!;
    await sv.stop();
    expect(sv.status().state).toBe('stopped');
    expect(pidAlive(pid)).toBe(false);
    await expect(sv.stop()).rejects.toThrow('core is not running');
  });

  it('kills a stale core it started before (pid file) when it starts again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sv-stale-'));
    const first = new CoreSupervisor({ bin: bin!, dataDir: dir });
    await first.init();
    const [port] = await freePorts(1);
    await first.restart(defaultTemplate(port!));
    const orphanPid = first.status().pid!;
    // Simulate a panel that died without cleaning up: a second supervisor on the same data dir.
    const second = new CoreSupervisor({ bin: bin!, dataDir: dir });
    await second.init();
    await eventually(() => !pidAlive(orphanPid), 2000);
    await first.shutdown();
    await second.shutdown();
  });
});

describe.skipIf(!bin)('an unrelated process is never killed by the stale-core check', () => {
  it('leaves a process whose pid is in the pid file alone when it is not our core', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sv-other-'));
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'core'), { recursive: true });
    writeFileSync(join(dir, 'core', 'core.pid'), JSON.stringify({ pid: sleeper.pid }));
    const sv = new CoreSupervisor({ bin: bin!, dataDir: dir });
    await sv.init();
    expect(pidAlive(sleeper.pid!)).toBe(true);
    sleeper.kill('SIGKILL');
    await sv.shutdown();
  });
});

describe('a panel without a core binary', () => {
  afterAll(async () => {
    await killAll();
  });
  it('starts, serves the API and says why the core is not running', async () => {
    const panel = await startPanel({ coreBin: '/nonexistent/xray' });
    try {
      const res = await panel.api('GET', '/panel/core/getCoreResult');
      expect(res.success).toBe(true);
      expect(res.obj).toMatch(/core binary not found: \/nonexistent\/xray/);
      const stop = await panel.api('POST', '/panel/api/server/stopCoreService');
      expect(stop).toMatchObject({ success: false, msg: 'core is not running' });
      const restart = await panel.api('POST', '/panel/api/server/restartCoreService');
      expect(restart.success).toBe(false);
      expect(restart.msg).toMatch(/core binary not found/);
      const cfg = await panel.api('GET', '/panel/api/server/getConfigJson');
      expect(cfg.obj.inbounds[0].tag).toBe('api');
    } finally {
      await panel.stop();
    }
  });
});
