// Real proxy clients for end-to-end tests, each exposing a local SOCKS5 port:
// - `v2rayClient(outbound)`: the v2ray binary with a socks inbound and the given outbound (vmess/vless/trojan/ss);
// - `ssLocal(...)`: shadowsocks-libev's ss-local;
// - `trojanClient(...)`: trojan-gfw as a TLS client that verifies the server certificate.
// Helpers build outbounds for what the panel created; `selfSignedCert()` makes a certificate with openssl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { startProc, type Proc } from './procs.js';
import { waitForPort } from '../../../host-agent/core/net.js';

export interface ProxyClient {
  socksPort: number;
  proc: Proc;
  stop(): Promise<void>;
}

async function ready(proc: Proc, port: number): Promise<void> {
  if (!(await waitForPort(port, 5000, () => proc.child.exitCode === null))) {
    throw new Error(`proxy client did not listen on ${port}:\n${proc.output().slice(-1500)}`);
  }
}

/** The v2ray binary as a client: socks on 127.0.0.1:<free port> → `outbound`. */
export async function v2rayClient(coreBin: string, outbound: Record<string, unknown>): Promise<ProxyClient> {
  const socksPort = await freePort();
  const config = {
    log: { loglevel: 'warning' },
    inbounds: [{ tag: 'socks-in', listen: '127.0.0.1', port: socksPort, protocol: 'socks', settings: { udp: false } }],
    outbounds: [{ tag: 'proxy', ...outbound }],
  };
  const dir = mkdtempSync(join(tmpdir(), 'e2e-client-'));
  const file = join(dir, 'client.json');
  writeFileSync(file, JSON.stringify(config));
  const proc = startProc(coreBin, ['-config', file]);
  await ready(proc, socksPort);
  return { socksPort, proc, stop: () => proc.kill() };
}

export const vmessOutbound = (port: number, id: string) => ({
  protocol: 'vmess',
  settings: { vnext: [{ address: '127.0.0.1', port, users: [{ id, alterId: 0, security: 'auto' }] }] },
});
export const vlessOutbound = (port: number, id: string) => ({
  protocol: 'vless',
  settings: { vnext: [{ address: '127.0.0.1', port, users: [{ id, encryption: 'none' }] }] },
});
export const trojanOutbound = (port: number, password: string) => ({
  protocol: 'trojan',
  settings: { servers: [{ address: '127.0.0.1', port, password }] },
});

/** shadowsocks-libev's ss-local (AEAD ciphers). */
export async function ssLocal(serverPort: number, password: string, method: string): Promise<ProxyClient> {
  const socksPort = await freePort();
  const proc = startProc('ss-local', [
    '-s',
    '127.0.0.1',
    '-p',
    String(serverPort),
    '-b',
    '127.0.0.1',
    '-l',
    String(socksPort),
    '-k',
    password,
    '-m',
    method,
  ]);
  await ready(proc, socksPort);
  return { socksPort, proc, stop: () => proc.kill() };
}

export interface Cert {
  dir: string;
  cert: string;
  key: string;
  sni: string;
}

/** A self-signed certificate for test.local and 127.0.0.1 (openssl). */
export function selfSignedCert(): Cert {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-cert-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      '/CN=test.local',
      '-addext',
      'subjectAltName=DNS:test.local,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { dir, cert, key, sni: 'test.local' };
}

/** trojan-gfw as a TLS client verifying `cert` for `sni`. */
export async function trojanClient(serverPort: number, password: string, cert: Cert): Promise<ProxyClient> {
  const socksPort = await freePort();
  const file = join(cert.dir, `trojan-client-${socksPort}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      run_type: 'client',
      local_addr: '127.0.0.1',
      local_port: socksPort,
      remote_addr: '127.0.0.1',
      remote_port: serverPort,
      password: [password],
      log_level: 1,
      ssl: {
        verify: true,
        verify_hostname: true,
        cert: cert.cert,
        sni: cert.sni,
        alpn: ['http/1.1'],
        reuse_session: true,
        session_ticket: false,
        curves: '',
      },
      tcp: { no_delay: true, keep_alive: true, reuse_port: false, fast_open: false, fast_open_qlen: 20 },
    }),
  );
  const proc = startProc('trojan', ['-c', file]);
  await ready(proc, socksPort);
  return { socksPort, proc, stop: () => proc.kill() };
}
