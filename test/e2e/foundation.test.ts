// End to end: the BUILT service (dist/, built by the vitest globalSetup) started as a user starts it, on
// 127.0.0.1 with free ports and a temporary data directory; real HTTP; SIGTERM; restart on the same data; the
// command-line tool; an in-process panel restart that picks up new ports and a new base path.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../support/databases.js';
import { freePorts } from './support/ports.js';

// Logins cost a deliberate PBKDF2 (600,000 iterations); on a loaded 2-core machine they are slow.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'dist/adapters/node/main.js');
const CLI = join(ROOT, 'dist/adapters/node/cli.js');

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'panel-e2e-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A clean environment: nothing from the caller's PANEL_* variables leaks in. */
function envWith(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(PANEL_|SUB_)/.test(k)) env[k] = v;
  return { ...env, PANEL_LOG_LEVEL: 'warn', ...vars };
}

class Service {
  readonly stdout: string[] = [];
  stderr = '';
  private exit: Promise<{ code: number | null; signal: string | null }>;
  constructor(readonly proc: ChildProcess) {
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      this.stdout.push(...lines);
    });
    proc.stderr!.on('data', (d: Buffer) => {
      this.stderr += d.toString();
    });
    this.exit = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static start(env: NodeJS.ProcessEnv): Service {
    const s = new Service(spawn(process.execPath, [MAIN], { env, cwd: tempDir(), stdio: ['ignore', 'pipe', 'pipe'] }));
    running.add(s);
    return s;
  }

  async waitFor(pattern: RegExp, timeoutMs = 45_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.stdout.find((l) => pattern.test(l));
      if (line) return line;
      if (this.proc.exitCode !== null)
        throw new Error(
          `service exited (${this.proc.exitCode}) before printing ${pattern}\n${this.stdout.join('\n')}\n${this.stderr}`,
        );
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${pattern}\n${this.stdout.join('\n')}\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGTERM; resolves with the exit code and how long the stop took. */
  async stop(): Promise<{ code: number | null; ms: number }> {
    const t0 = Date.now();
    this.proc.kill('SIGTERM');
    const { code } = await this.exit;
    running.delete(this);
    return { code, ms: Date.now() - t0 };
  }
}
const running = new Set<Service>();
afterEach(() => {
  for (const s of running) s.proc.kill('SIGKILL');
  running.clear();
});

interface Http {
  status: number;
  json: any;
  text: string;
  headers: Headers;
}
async function http(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Http> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { ...init, headers, body });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text, headers: res.headers };
}

async function loginAt(base: string, username: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const r = await http(`${base}login`, { method: 'POST', json: { username, password } });
  expect(r.json?.success, `login at ${base}: ${r.text}`).toBe(true);
  const cookie = r.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = (await http(`${base}csrf-token`, { headers: { cookie } })).json.obj;
  return { cookie, csrf };
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe.each(testDatabases())('the built service on $name', (db) => {
  it('starts, serves, stops on SIGTERM with exit 0, and keeps tokens and settings across a restart', async () => {
    const dataDir = tempDir();
    const [port, subPort] = await freePorts(2);
    const vars: Record<string, string> = {
      PANEL_DATA_DIR: dataDir,
      PANEL_LISTEN: '127.0.0.1',
      PANEL_PORT: String(port),
      SUB_PORT: String(subPort),
      PANEL_ADMIN_USERNAME: 'operator',
      PANEL_ADMIN_PASSWORD: 'e2e password 1',
    };
    if (db.name === 'pg') vars.PANEL_DB_URL = await db.freshUrl();
    const base = `http://127.0.0.1:${port}/`;

    const first = Service.start(envWith(vars));
    await first.waitFor(/^subscription listening on /);
    expect(first.stdout).toContain(`panel listening on http://127.0.0.1:${port}/`);
    expect(first.stdout).toContain(`subscription listening on http://127.0.0.1:${subPort}/`);
    expect(first.stdout.join('\n')).not.toMatch(/password/i);

    // The subscription server answers 404 to anything that is not a subscription.
    expect((await http(`http://127.0.0.1:${subPort}/nothing-here`)).status).toBe(404);
    // Unauthenticated: 404 with an empty body.
    const anon = await http(`${base}panel/setting/all`, { method: 'POST' });
    expect([anon.status, anon.text]).toEqual([404, '']);

    const session = await loginAt(base, 'operator', 'e2e password 1');
    const created = await http(`${base}panel/setting/apiTokens/create`, {
      method: 'POST',
      json: { name: 'e2e' },
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(created.json.success).toBe(true);
    const token: string = created.json.obj.token;
    const bearer = { authorization: `Bearer ${token}` };
    const updated = await http(`${base}panel/setting/update`, {
      method: 'POST',
      json: { subTitle: 'kept across restarts' },
      headers: bearer,
    });
    expect(updated.json.success).toBe(true);
    expect((await http(`${base}panel/setting/all`, { method: 'POST', headers: bearer })).json.obj.subTitle).toBe(
      'kept across restarts',
    );

    const stopped = await first.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);

    // Same data directory (and database): everything is still there.
    const second = Service.start(envWith(vars));
    await second.waitFor(/^subscription listening on /);
    const all = await http(`${base}panel/setting/all`, { method: 'POST', headers: bearer });
    expect(all.json.success).toBe(true);
    expect(all.json.obj.subTitle).toBe('kept across restarts');
    const tokens = await http(`${base}panel/setting/apiTokens`, { headers: bearer });
    expect(tokens.json.obj.map((x: { name: string }) => x.name)).toEqual(['e2e']);
    await loginAt(base, 'operator', 'e2e password 1');
    const again = await second.stop();
    expect(again.code).toBe(0);
    expect(again.ms).toBeLessThan(10_000);
  });
});

describe('first start and the command-line tool (libsql)', () => {
  it('without PANEL_ADMIN_*: creates admin with a random password printed once', async () => {
    const dataDir = tempDir();
    const [port, subPort] = await freePorts(2);
    const env = envWith({
      PANEL_DATA_DIR: dataDir,
      PANEL_LISTEN: '127.0.0.1',
      PANEL_PORT: String(port),
      SUB_PORT: String(subPort),
    });
    const s1 = Service.start(env);
    const line = await s1.waitFor(/^admin credential created: /);
    await s1.waitFor(/^subscription listening on /);
    const password = /password (\S+)/.exec(line)![1]!;
    expect(line).toMatch(/username admin /);
    expect(password.length).toBeGreaterThanOrEqual(16);
    await loginAt(`http://127.0.0.1:${port}/`, 'admin', password);
    expect((await s1.stop()).code).toBe(0);

    const s2 = Service.start(env);
    await s2.waitFor(/^subscription listening on /);
    expect(s2.stdout.join('\n')).not.toMatch(/admin credential created/);
    expect((await s2.stop()).code).toBe(0);
  });

  it('a SIGTERM while the service is still starting stops it gracefully (exit 0), not by the signal', async () => {
    const [port, subPort] = await freePorts(2);
    const env = envWith({
      PANEL_DATA_DIR: tempDir(),
      PANEL_LISTEN: '127.0.0.1',
      PANEL_PORT: String(port),
      SUB_PORT: String(subPort),
    });
    const s = Service.start(env);
    // The admin line is printed before the listeners and the core start: signalling the moment it arrives
    // (not on the next poll) lands the signal mid-start.
    await new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        if (!/admin credential created/.test(d.toString())) return;
        s.proc.stdout!.off('data', onData);
        resolve();
      };
      s.proc.stdout!.on('data', onData);
    });
    const stopped = await s.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
  });

  it('CLI: set validates like the API, settings shows overrides, token create, admin, migrate', async () => {
    const dataDir = tempDir();
    const env = envWith({ PANEL_DATA_DIR: dataDir });

    const migrate = await cli(['migrate'], env);
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/migrations applied/);

    const bad = await cli(['set', 'webPort', '99999'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/webPort: must be a port from 1 to 65535/);
    const badPath = await cli(['set', 'webBasePath', '/a b/'], env);
    expect(badPath.code).not.toBe(0);
    expect(badPath.stderr).toMatch(/webBasePath: /);
    const certAlone = await cli(['set', 'webCertFile', '/etc/hostname'], env);
    expect(certAlone.code).not.toBe(0);
    expect(certAlone.stderr).toMatch(/webKeyFile: .*together/);
    const unknown = await cli(['set', 'noSuchKey', '1'], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/noSuchKey: unknown setting key/);
    const usage = await cli(['frobnicate'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/usage: npm run panel/);

    const ok = await cli(['set', 'subTitle', 'from the CLI'], env);
    expect(ok.code).toBe(0);
    const set2 = await cli(['set', 'webPort', '8080'], env);
    expect(set2.code).toBe(0);

    const json = await cli(['settings', '--json'], { ...env, PANEL_PORT: '9090' });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({ subTitle: 'from the CLI', webPort: 9090 });
    expect(parsed._sessionSecret).toBeUndefined();
    const plain = await cli(['settings'], { ...env, PANEL_PORT: '9090' });
    expect(plain.stdout).toMatch(/^webPort = 9090 +\(from PANEL_PORT/m);
    expect(plain.stdout).toMatch(/^subTitle = "from the CLI"$/m);
    expect((await cli(['settings'], env)).stdout).toMatch(/^webPort = 8080$/m);
    const badEnv = await cli(['settings'], { ...env, PANEL_BASE_PATH: '/a b/' });
    expect(badEnv.code).not.toBe(0);
    expect(badEnv.stderr).toMatch(/PANEL_BASE_PATH: webBasePath: /);

    const tok = await cli(['token', 'create', 'automation'], env);
    expect(tok.code).toBe(0);
    expect(tok.stdout.trim()).toMatch(/^[A-Za-z0-9]{32,}$/);
    const dup = await cli(['token', 'create', 'automation'], env);
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toMatch(/already exists/);

    const admin = await cli(['admin', '--username', 'boss', '--password', 'cli password', '--reset-2fa'], env);
    expect(admin.code).toBe(0);
    expect(admin.stdout).not.toMatch(/cli password/);
    const noPw = await cli(['admin', '--username', 'boss'], env);
    expect(noPw.code).not.toBe(0);

    // The service on that data directory honours what the CLI wrote.
    const [port, subPort] = await freePorts(2);
    const s = Service.start({ ...env, PANEL_LISTEN: '127.0.0.1', PANEL_PORT: String(port), SUB_PORT: String(subPort) });
    await s.waitFor(/^subscription listening on /);
    expect(s.stdout.join('\n')).not.toMatch(/admin credential created/);
    const base = `http://127.0.0.1:${port}/`;
    const r = await http(`${base}panel/setting/all`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok.stdout.trim()}` },
    });
    expect(r.json.obj.subTitle).toBe('from the CLI');
    await loginAt(base, 'boss', 'cli password');
    expect((await s.stop()).code).toBe(0);
  });

  it('/restartPanel restarts the listeners in-process on new ports and a new base path', async () => {
    const dataDir = tempDir();
    const env = envWith({ PANEL_DATA_DIR: dataDir, PANEL_ADMIN_USERNAME: 'admin', PANEL_ADMIN_PASSWORD: 'restart pw' });
    const [p1, s1, p2, s2] = await freePorts(4);
    for (const [k, v] of [
      ['webListen', '127.0.0.1'],
      ['webPort', String(p1)],
      ['subPort', String(s1)],
    ]) {
      expect((await cli(['set', k!, v!], env)).code).toBe(0);
    }
    const svc = Service.start(env);
    await svc.waitFor(/^subscription listening on /);
    const pid = svc.proc.pid;
    const oldBase = `http://127.0.0.1:${p1}/`;
    const session = await loginAt(oldBase, 'admin', 'restart pw');
    const auth = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    const upd = await http(`${oldBase}panel/setting/update`, {
      method: 'POST',
      json: { webPort: p2, subPort: s2, webBasePath: '/moved/' },
      headers: auth,
    });
    expect(upd.json.success).toBe(true);
    const t0 = Date.now();
    const restart = await http(`${oldBase}panel/setting/restartPanel`, { method: 'POST', headers: auth });
    expect(restart.json.success).toBe(true);
    // Answered before the restart: the old listener still answers right after.
    expect((await http(`${oldBase}csrf-token`)).status).toBe(200);

    await svc.waitFor(new RegExp(`^panel listening on http://127\\.0\\.0\\.1:${p2}/moved/$`));
    await svc.waitFor(new RegExp(`^subscription listening on http://127\\.0\\.0\\.1:${s2}/$`));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    expect(svc.proc.pid).toBe(pid);
    expect(svc.proc.exitCode).toBeNull();
    const newBase = `http://127.0.0.1:${p2}/moved/`;
    // The session cookie survives (same secret, same credential); the new base path serves, the old port is closed.
    const all = await http(`${newBase}panel/setting/all`, { method: 'POST', headers: auth });
    expect(all.json.obj).toMatchObject({ webPort: p2, webBasePath: '/moved/' });
    expect((await http(`http://127.0.0.1:${p2}/panel/setting/all`, { method: 'POST', headers: auth })).status).toBe(
      404,
    );
    await expect(fetch(`${oldBase}csrf-token`)).rejects.toThrow();
    expect((await http(`http://127.0.0.1:${s2}/x`)).status).toBe(404);
    const stopped = await svc.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
  });
});
