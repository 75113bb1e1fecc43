// TLS on the subscription listener: with subCertFile/subKeyFile set, the listener serves HTTPS and the start-up
// line says https.
import { execFileSync } from 'node:child_process';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts, startPanel, type Panel } from './subscription-support.js';

function httpsGet(url: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('subscription listener over TLS', () => {
  let panel: Panel;
  let port = 0;
  beforeAll(async () => {
    panel = await startPanel();
    [port] = (await freePorts(1)) as [number];
    const cert = join(panel.dataDir, 'sub-cert.pem');
    const key = join(panel.dataDir, 'sub-key.pem');
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
    const r = await panel.api('POST', '/panel/setting/update', { subCertFile: cert, subKeyFile: key });
    expect(r.success, r.msg).toBe(true);
    const ib = await panel.api('POST', '/panel/api/inbounds/add', {
      protocol: 'vless',
      port,
      remark: 'T',
      settings: { decryption: 'none' },
      streamSettings: { network: 'tcp', security: 'none' },
    });
    expect(ib.success, ib.msg).toBe(true);
    const c = await panel.api('POST', '/panel/api/clients/add', {
      client: { email: 'tls-user', subId: 'tls-sub', enable: true },
      inboundIds: [ib.obj.id],
    });
    expect(c.success, c.msg).toBe(true);
    panel.printed.length = 0;
    await panel.server.restart();
  }, 60_000);
  afterAll(async () => {
    await panel?.stop();
  });

  it('serves the subscription over https and says so at start-up', async () => {
    expect(panel.subUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    expect(panel.printed).toContain(`subscription listening on ${panel.subUrl}`);
    const r = await httpsGet(`${panel.subUrl}sub/tls-sub`);
    expect(r.status).toBe(200);
    const link = Buffer.from(r.body, 'base64').toString('utf8');
    expect(link).toMatch(new RegExp(`^vless://[0-9a-f-]+@127\\.0\\.0\\.1:${port}\\?`));
    expect(r.headers['profile-web-page-url']).toBe(`${panel.subUrl}sub/tls-sub`);
    expect((await httpsGet(`${panel.subUrl}nothing`)).status).toBe(404);
  });
});
