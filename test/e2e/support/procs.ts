// Child processes of a test, killed (by their own pid) when the test file ends.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';

const live = new Set<ChildProcess>();

export interface Proc {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves when a line matching `re` appears (rejects after `timeoutMs` or when the process exits). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startProc(cmd: string, args: string[], opts: SpawnOptions = {}): Proc {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  live.add(child);
  let out = '';
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    for (const w of [...waiters]) {
      const m = w.re.exec(out);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m[0]);
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
    child.once('error', () => {
      live.delete(child);
      resolve({ code: -1, signal: null });
    });
  });
  return {
    child,
    output: () => out,
    exited,
    waitFor(re, timeoutMs = 10_000) {
      const m = re.exec(out);
      if (m) return Promise.resolve(m[0]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${re} from ${cmd}; output:\n${out.slice(-2000)}`)),
          timeoutMs,
        );
        waiters.push({
          re,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`${cmd} exited (${code ?? signal}) before ${re}; output:\n${out.slice(-2000)}`));
        });
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 8000);
      await exited;
      clearTimeout(t);
    },
  };
}

const cleanups = new Set<() => Promise<void>>();

/** Registers work for `killAll()` to run first (e.g. stopping a panel gracefully so its core goes too). */
export function onKillAll(fn: () => Promise<void>): () => void {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/** Kills every process this test file started and is still running (panels first, gracefully, then the rest). */
export async function killAll(): Promise<void> {
  await Promise.all([...cleanups].map((fn) => fn().catch(() => undefined)));
  cleanups.clear();
  await Promise.all(
    [...live].map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGKILL');
        }),
    ),
  );
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers signal 0; check its state.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}
