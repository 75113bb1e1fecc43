// Server tools in the built panel, started as a user starts it (no core binary needed): the panel log through
// the logger's ring, the core logs from the data directory, and a database download followed by an import that
// restores it and restarts the panel in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, killAll, startPanel, type Panel } from './support/index.js';

let panel: Panel;

beforeAll(async () => {
  panel = await startPanel({ coreBin: '/nonexistent/xray', env: { PANEL_LOG_LEVEL: 'debug' } });
}, 60_000);
afterAll(async () => {
  await killAll();
});

const authed = (path: string, init: RequestInit = {}) =>
  fetch(new URL(path.replace(/^\//, ''), panel.url), {
    ...init,
    headers: { authorization: `Bearer ${panel.token}`, ...(init.headers ?? {}) },
  });

describe('server tools (built panel)', () => {
  it('logs/:count returns the panel log lines the logger wrote', async () => {
    const r = await panel.api('POST', 'panel/api/server/logs/500', { level: 'debug', syslog: false });
    expect(r.success).toBe(true);
    expect(r.obj).toMatch(/"msg":"the core is not available; the panel runs without it"/);
    expect(r.obj).toMatch(/"msg":"request"/);
    const warn = await panel.api('POST', 'panel/api/server/logs/500', { level: 'warn' });
    expect(warn.obj).not.toMatch(/"level":"(debug|info)"/);
    expect(warn.obj).toMatch(/"level":"warn"/);
  });

  it('corelogs/:count reads the access log in the data directory', async () => {
    writeFileSync(
      join(panel.dataDir, 'access.log'),
      '2026/11/22 01:48:47 from 127.0.0.1:1 accepted tcp:example.com:443 [in -> direct] email: a@x\n',
    );
    const r = await panel.api('POST', 'panel/api/server/corelogs/10', new URLSearchParams({ showDirect: 'true' }));
    expect(r).toMatchObject({ success: true });
    expect(r.obj).toContain('example.com:443');
  });

  it('getDb then importDB restores the downloaded database and the panel comes back', async () => {
    const res = await authed('panel/api/server/getDb');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="panel_.*\.db"/);
    const db = new Uint8Array(await res.arrayBuffer());

    const made = await panel.api('POST', 'panel/setting/apiTokens/create', { name: 'made-after-the-backup' });
    expect(made.success).toBe(true);

    const form = new FormData();
    form.set('db', new File([db as Uint8Array<ArrayBuffer>], 'backup.db'));
    const imp = await (await authed('panel/api/server/importDB', { method: 'POST', body: form })).json();
    expect(imp.success).toBe(true);
    expect(readdirSync(join(panel.dataDir, 'backups'))).toHaveLength(1);
    expect(existsSync(imp.obj.backup)).toBe(true);

    // The panel restarts in-process after 3 s; our token is in the restored data, the newer one is gone.
    await eventually(() => (panel.proc.output().match(/panel listening on/g) ?? []).length >= 2, 15_000, 100);
    const names = await eventually(
      async () => {
        const list = await panel.api('GET', 'panel/setting/apiTokens');
        return list.success ? (list.obj as { name: string }[]).map((t) => t.name) : null;
      },
      15_000,
      200,
    );
    expect(names).not.toContain('made-after-the-backup');
    expect(names!.length).toBeGreaterThan(0);
  });
});
