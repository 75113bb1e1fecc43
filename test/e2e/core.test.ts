// Real core, real clients: bytes through VMess, VLESS, Trojan (plain and TLS) and Shadowsocks; live changes
// without a core restart; a disabled inbound and a deleted client refused; crash recovery; no orphan on SIGTERM.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addClient,
  addInbound,
  curlSocks,
  curlSocksEventually,
  eventually,
  killAll,
  pidAlive,
  selfSignedCert,
  ssLocal,
  startPanel,
  startTarget,
  testCoreBin,
  trojanClient,
  trojanOutbound,
  v2rayClient,
  vlessOutbound,
  vmessOutbound,
  type Panel,
  type Target,
} from './support/index.js';

const bin = testCoreBin();
const MB = 1024 * 1024;

describe.skipIf(!bin)('real core end to end', () => {
  let panel: Panel;
  let target: Target;

  beforeAll(async () => {
    target = await startTarget();
    panel = await startPanel({ coreBin: bin! });
    await eventually(() => panel.corePid(), 5000);
  });
  afterAll(async () => {
    await panel?.stop();
    await target?.close();
    await killAll();
  });

  it('reports the running core and its config', async () => {
    const cfg = await panel.api('GET', '/panel/api/server/getConfigJson');
    expect(cfg.success).toBe(true);
    expect(cfg.obj.inbounds[0]).toMatchObject({ tag: 'api', port: panel.ports.api, protocol: 'dokodemo-door' });
    expect(cfg.obj.log.loglevel).toBeTruthy();
  });

  it('VMess carries bytes', async () => {
    const ib = await addInbound(panel, { protocol: 'vmess' });
    const c = await addClient(panel, 'vmess-a@e2e', ib.id);
    const client = await v2rayClient(bin!, vmessOutbound(ib.port, c.uuid));
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`));
    expect(d.error).toBe('');
    expect(d.bytes).toBe(MB);
    await client.stop();
  });

  it('VLESS carries bytes', async () => {
    const ib = await addInbound(panel, { protocol: 'vless', settings: { decryption: 'none' } });
    const c = await addClient(panel, 'vless-a@e2e', ib.id);
    const client = await v2rayClient(bin!, vlessOutbound(ib.port, c.uuid));
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`));
    expect(d.bytes).toBe(MB);
    await client.stop();
  });

  it('Trojan (plain) carries bytes', async () => {
    const ib = await addInbound(panel, { protocol: 'trojan' });
    const c = await addClient(panel, 'trojan-a@e2e', ib.id);
    const client = await v2rayClient(bin!, trojanOutbound(ib.port, c.password));
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`));
    expect(d.bytes).toBe(MB);
    await client.stop();
  });

  it('Trojan over TLS (self-signed, verified by trojan-gfw) carries bytes', async () => {
    const cert = selfSignedCert();
    const ib = await addInbound(panel, {
      protocol: 'trojan',
      streamSettings: {
        network: 'tcp',
        security: 'tls',
        tlsSettings: {
          serverName: cert.sni,
          alpn: ['http/1.1'],
          certificates: [{ certificateFile: cert.cert, keyFile: cert.key }],
        },
      },
    });
    const c = await addClient(panel, 'trojan-tls@e2e', ib.id);
    const client = await trojanClient(ib.port, c.password, cert);
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`));
    expect(d.bytes).toBe(MB);
    await client.stop();
  });

  it('Shadowsocks (ss-local) carries bytes', async () => {
    const ib = await addInbound(panel, {
      protocol: 'shadowsocks',
      settings: { method: 'aes-256-gcm', network: 'tcp,udp' },
    });
    const c = await addClient(panel, 'ss-a@e2e', ib.id);
    const client = await ssLocal(ib.port, c.password, 'aes-256-gcm');
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${MB}`));
    expect(d.bytes).toBe(MB);
    await client.stop();
  });

  it('a client added while the core runs works without a restart, and an open download is not interrupted', async () => {
    const ib = await addInbound(panel, { protocol: 'vmess' });
    const a = await addClient(panel, 'live-a@e2e', ib.id);
    const ca = await v2rayClient(bin!, vmessOutbound(ib.port, a.uuid));
    expect((await curlSocksEventually(ca.socksPort, target.url('/bytes/1000'))).bytes).toBe(1000);
    const pid = panel.corePid();
    expect(pid).toBeTruthy();

    const slow = curlSocks(ca.socksPort, target.url(`/slow/${2 * MB}?ms=3000`), 20);
    await new Promise((r) => setTimeout(r, 500));
    const b = await addClient(panel, 'live-b@e2e', ib.id);
    const cb = await v2rayClient(bin!, vmessOutbound(ib.port, b.uuid));
    const d = await curlSocksEventually(cb.socksPort, target.url(`/bytes/${MB}`), 3000);
    expect(d.bytes).toBe(MB);
    expect(panel.corePid()).toBe(pid);
    const open = await slow;
    expect(open.error).toBe('');
    expect(open.bytes).toBe(2 * MB);
    expect(panel.corePid()).toBe(pid);
    await Promise.all([ca.stop(), cb.stop()]);
  });

  it('a disabled inbound stops accepting connections, and accepts again when enabled', async () => {
    const ib = await addInbound(panel, { protocol: 'vless', settings: { decryption: 'none' } });
    const c = await addClient(panel, 'disable-me@e2e', ib.id);
    const client = await v2rayClient(bin!, vlessOutbound(ib.port, c.uuid));
    expect((await curlSocksEventually(client.socksPort, target.url('/bytes/1000'))).bytes).toBe(1000);
    const pid = panel.corePid();
    expect((await panel.api('POST', `/panel/api/inbounds/setEnable/${ib.id}`, { enable: false })).success).toBe(true);
    await eventually(async () => !(await curlSocks(client.socksPort, target.url('/bytes/1000'), 3)).ok, 3000);
    expect((await panel.api('POST', `/panel/api/inbounds/setEnable/${ib.id}`, { enable: true })).success).toBe(true);
    expect((await curlSocksEventually(client.socksPort, target.url('/bytes/1000'), 3000)).bytes).toBe(1000);
    expect(panel.corePid()).toBe(pid);
    await client.stop();
  });

  it('a deleted client is refused while another client keeps working', async () => {
    const ib = await addInbound(panel, { protocol: 'vmess' });
    const gone = await addClient(panel, 'delete-me@e2e', ib.id);
    const stay = await addClient(panel, 'stay@e2e', ib.id);
    const cg = await v2rayClient(bin!, vmessOutbound(ib.port, gone.uuid));
    const cs = await v2rayClient(bin!, vmessOutbound(ib.port, stay.uuid));
    expect((await curlSocksEventually(cg.socksPort, target.url('/bytes/1000'))).bytes).toBe(1000);
    expect((await panel.api('POST', `/panel/api/clients/del/${encodeURIComponent(gone.email)}`)).success).toBe(true);
    await eventually(async () => !(await curlSocks(cg.socksPort, target.url('/bytes/1000'), 3)).ok, 3000);
    expect((await curlSocks(cs.socksPort, target.url('/bytes/1000'))).bytes).toBe(1000);
    await Promise.all([cg.stop(), cs.stop()]);
  });

  it('a core killed from outside is back within 5 seconds and carries traffic again', async () => {
    const ib = await addInbound(panel, { protocol: 'vmess' });
    const c = await addClient(panel, 'crash@e2e', ib.id);
    const client = await v2rayClient(bin!, vmessOutbound(ib.port, c.uuid));
    expect((await curlSocksEventually(client.socksPort, target.url('/bytes/1000'))).bytes).toBe(1000);
    const pid = panel.corePid()!;
    const t0 = Date.now();
    process.kill(pid, 'SIGKILL');
    const next = await eventually(() => {
      const p = panel.corePid();
      return p && p !== pid ? p : null;
    }, 5000);
    expect(next).not.toBe(pid);
    const d = await curlSocksEventually(
      client.socksPort,
      target.url('/bytes/1000'),
      Math.max(500, 5000 - (Date.now() - t0)),
    );
    expect(d.bytes).toBe(1000);
    expect(Date.now() - t0).toBeLessThan(5000);
    await client.stop();
  });
});

describe.skipIf(!bin)('panel shutdown', () => {
  afterAll(async () => {
    await killAll();
  });

  it('SIGTERM on the panel leaves no core process behind', async () => {
    const panel = await startPanel({ coreBin: bin! });
    const pid = (await eventually(() => panel.corePid(), 5000))!;
    expect(pidAlive(pid)).toBe(true);
    const r = await panel.stop('SIGTERM');
    expect(r.code).toBe(0);
    await eventually(() => !pidAlive(pid), 2000);
  });
});
