// POST /panel/api/server/logs/:count with `syslog: true`, on libsql and PostgreSQL: the systemd journal through
// the real host-agent reader and a stand-in journalctl on PATH (it prints its arguments), and the panel's own
// log with the reason when the panel does not run under systemd or journalctl is missing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { LogRing } from '../../adapters/node/log-ring.js';
import { createSystemJournal, unitFromCgroup } from '../../host-agent/journal.js';

const S = '/panel/api/server';
let bin: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'panel-journalctl-'));
  writeFileSync(
    join(bin, 'journalctl'),
    '#!/bin/sh\necho "-- Journal begins at Mon 2026-11-23 --"\necho "2026-11-23T10:00:00+0000 host node[42]: args: $*"\necho "2026-11-23T10:00:01+0000 host node[42]: {\\"level\\":\\"warn\\",\\"msg\\":\\"from the journal\\"}"\n',
  );
  chmodSync(join(bin, 'journalctl'), 0o755);
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

it('finds the unit in /proc/self/cgroup lines', () => {
  expect(unitFromCgroup('0::/system.slice/proxy-panel.service\n')).toBe('proxy-panel.service');
  expect(unitFromCgroup('12:pids:/system.slice/panel@2.service/sub\n')).toBe('panel@2.service');
  expect(unitFromCgroup('0::/user.slice/user-1000.slice/session-3.scope\n')).toBeNull();
});

describe.each(testDatabases())('logs with syslog on $name', (db) => {
  let t: TestApp;
  let s: Session;
  const start = async (env: NodeJS.ProcessEnv) => {
    const ring = new LogRing(10);
    ring.push('{"level":"warn","msg":"from the ring"}');
    t = await createTestApp(db, {
      deps: {
        serverTools: {
          logs: ring,
          journal: createSystemJournal({ env, cgroup: () => '0::/system.slice/proxy-panel.service\n' }),
        },
      },
    });
    s = await login(t);
  };
  afterEach(() => t.close());

  it('reads journalctl -u <unit> with the count and priority when running under systemd', async () => {
    await start({ PATH: bin, INVOCATION_ID: 'abc' });
    const r = await call(t, 'POST', `${S}/logs/25`, { level: 'warn', syslog: true }, s);
    expect(r.json).toMatchObject({ success: true, msg: 'from the systemd journal' });
    expect(r.json.obj.split('\n')).toEqual([
      '2026-11-23T10:00:00+0000 host node[42]: args: -u proxy-panel.service -n 25 -p 4 --no-pager -o short-iso',
      '2026-11-23T10:00:01+0000 host node[42]: {"level":"warn","msg":"from the journal"}',
    ]);
    // Form bodies carry the flag as a string.
    const f = await call(t, 'POST', `${S}/logs/5`, new URLSearchParams({ level: 'error', syslog: 'true' }), s);
    expect(f.json.obj).toMatch(/-n 5 -p 3 /);
  });

  it("answers with the panel's own log and says why when not under systemd", async () => {
    await start({ PATH: bin });
    const r = await call(t, 'POST', `${S}/logs/10`, { level: 'info', syslog: true }, s);
    expect(r.json).toEqual({
      success: true,
      msg: "syslog: the panel is not running under systemd; showing the panel's own log instead",
      obj: '{"level":"warn","msg":"from the ring"}',
    });
  });

  it("answers with the panel's own log and says why when journalctl is missing", async () => {
    await start({ PATH: '/nonexistent', INVOCATION_ID: 'abc' });
    const r = await call(t, 'POST', `${S}/logs/10`, { syslog: true }, s);
    expect(r.json.msg).toBe("syslog: journalctl is not installed; showing the panel's own log instead");
    expect(r.json.obj).toBe('{"level":"warn","msg":"from the ring"}');
  });

  it('ignores the journal with syslog false', async () => {
    await start({ PATH: bin, INVOCATION_ID: 'abc' });
    const r = await call(t, 'POST', `${S}/logs/10`, { syslog: false }, s);
    expect(r.json).toEqual({ success: true, msg: '', obj: '{"level":"warn","msg":"from the ring"}' });
  });
});
