#!/usr/bin/env node
// The launcher of an installed panel (the systemd unit runs it; see scripts/install.sh): runs
// PREFIX/current/dist/adapters/node/main.js as a child, starts it again when it exits with RESTART_EXIT_CODE,
// and carries out a pending self-update: switch `current`, start the new release, and when it has not written
// its ready file within the health deadline, stop it, restore the database snapshot, switch back and start the
// previous release. Everything else (signals, other exit codes) passes through, so systemd sees the panel.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PENDING_FILE, STATUS_FILE, type PendingUpdate } from '../../host-agent/panel-installer.js';
import { READY_FILE, RESTART_EXIT_CODE } from './lifecycle.js';

const TRIAL_FILE = 'update-trial.json';
const here = dirname(fileURLToPath(import.meta.url));
// PREFIX/releases/<version>/dist/adapters/node → PREFIX
const prefix = resolve(process.env.PANEL_PREFIX || join(here, '..', '..', '..', '..', '..'));
const dataDir = resolve(process.env.PANEL_DATA_DIR || './data');
const readyFile = join(dataDir, READY_FILE);
const healthMs = Number(process.env.PANEL_UPDATE_HEALTH_MS) || 60_000;

const log = (msg: string, fields: Record<string, unknown> = {}) =>
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `launcher: ${msg}`, ...fields })}\n`,
  );

let child: ChildProcess | null = null;
let stopping = false;

function start(): ChildProcess {
  rmSync(readyFile, { force: true });
  const main = join(prefix, 'current', 'dist', 'adapters', 'node', 'main.js');
  const c = spawn(process.execPath, [main], {
    stdio: 'inherit',
    env: { ...process.env, PANEL_PREFIX: prefix, PANEL_LAUNCHER: '1' },
  });
  child = c;
  return c;
}

const exited = (c: ChildProcess) =>
  new Promise<number>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) r(c.exitCode ?? 1);
    else c.once('exit', (code) => r(code ?? 1));
  });

async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), 12_000);
  await exited(c);
  clearTimeout(t);
}

function link(target: string): void {
  const tmp = join(prefix, `.current-${process.pid}`);
  rmSync(tmp, { force: true });
  symlinkSync(relative(prefix, target), tmp);
  renameSync(tmp, join(prefix, 'current')); // atomic replace
}

/** The child wrote its ready file with the expected version and its own pid. */
async function healthy(c: ChildProcess, version: string): Promise<boolean> {
  const deadline = Date.now() + healthMs;
  while (Date.now() < deadline) {
    if (c.exitCode !== null || c.signalCode !== null) return false;
    try {
      const r = JSON.parse(readFileSync(readyFile, 'utf8')) as { version?: string; pid?: number };
      if (r.version === version && r.pid === c.pid) return true;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function status(p: PendingUpdate, result: 'updated' | 'rolled-back', reason?: string): void {
  writeFileSync(
    join(prefix, STATUS_FILE),
    JSON.stringify(
      { result, from: p.fromVersion, to: p.toVersion, at: Date.now(), ...(reason ? { reason } : {}) },
      null,
      2,
    ),
  );
  log(
    result === 'updated'
      ? `updated ${p.fromVersion} -> ${p.toVersion}`
      : `rolled back ${p.toVersion} -> ${p.fromVersion}`,
    reason ? { reason } : {},
  );
}

function restoreDatabase(p: PendingUpdate): void {
  if (!p.dbFile || !p.dbSnapshot || !existsSync(p.dbSnapshot)) return;
  for (const ext of ['-wal', '-shm', '-journal']) rmSync(`${p.dbFile}${ext}`, { force: true });
  copyFileSync(p.dbSnapshot, p.dbFile);
}

async function rollback(p: PendingUpdate, reason: string): Promise<void> {
  restoreDatabase(p);
  link(p.fromDir);
  rmSync(join(prefix, TRIAL_FILE), { force: true });
  status(p, 'rolled-back', reason);
}

/** One run of the panel; resolves with the exit code to pass on, or null to start it again. */
async function runOnce(): Promise<number | null> {
  // A launcher that died during a trial left the trial file: that update did not prove itself.
  const trialPath = join(prefix, TRIAL_FILE);
  if (existsSync(trialPath))
    await rollback(
      JSON.parse(readFileSync(trialPath, 'utf8')) as PendingUpdate,
      'the launcher stopped during the health check',
    );
  const pendingPath = join(prefix, PENDING_FILE);
  let trial: PendingUpdate | null = null;
  if (existsSync(pendingPath)) {
    trial = JSON.parse(readFileSync(pendingPath, 'utf8')) as PendingUpdate;
    renameSync(pendingPath, trialPath);
    link(trial.toDir);
    log(`trying ${trial.toVersion}`);
  }
  const c = start();
  if (trial) {
    if (await healthy(c, trial.toVersion)) {
      rmSync(trialPath, { force: true });
      status(trial, 'updated');
    } else {
      const reason =
        c.exitCode !== null
          ? `it exited with code ${c.exitCode}`
          : `it was not ready within ${Math.round(healthMs / 1000)} s`;
      await stopChild(c);
      await rollback(trial, reason);
      return stopping ? 0 : null;
    }
  }
  const code = await exited(c);
  if (stopping) return code;
  return code === RESTART_EXIT_CODE ? null : code;
}

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    stopping = true;
    child?.kill(sig);
  });
}

for (;;) {
  const code = await runOnce();
  if (code !== null) process.exit(code);
}
