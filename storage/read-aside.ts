// A second, read-only SQLite connection on a worker thread (docs/decisions/0004). libsql runs a statement on the
// calling thread, so two
// statements on the main connection run one after the other and hold the event loop meanwhile; one sent here runs
// on the other core while the main thread runs another (inbounds/get of a large inbound builds its two halves so).
// The file is in WAL mode: this connection reads the last committed state without blocking the writer.
// Node only: the worker is created on first use, and a runtime without worker threads simply has no aside reader.
import type { Worker } from 'node:worker_threads';
import { sqliteArgs } from './sqlite-args.js';

/** Runs one read statement on the worker; rows as objects keyed by column name. */
export type ReadAside = (sql: string, args: unknown[]) => Promise<Record<string, unknown>[]>;

export interface AsideReader {
  read: ReadAside;
  close(): Promise<void>;
}

// CommonJS, evaluated in the worker: no file to locate next to the compiled code or the TypeScript sources.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createClient } = require(workerData.libsql);
const client = createClient({ url: workerData.url, timeout: 5000 });
const ready = client.execute('PRAGMA query_only = 1');
parentPort.on('message', async ({ id, sql, args }) => {
  try {
    await ready;
    const res = await client.execute({ sql, args });
    parentPort.postMessage({ id, columns: res.columns, rows: res.rows.map((r) => res.columns.map((_, i) => r[i])) });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

type Reply = { id: number; columns?: string[]; rows?: unknown[][]; error?: string };

/** The aside reader of a SQLite file database (`file:` URL), or null where it cannot exist (memory, remote). */
export function asideReader(url: string): AsideReader | null {
  if (!/^file:/i.test(url) || url.includes(':memory:')) return null;
  let worker: Promise<Worker> | null = null;
  let next = 0;
  const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    worker = null; // the next read starts a new worker
  };

  const start = async (): Promise<Worker> => {
    const { Worker } = await import('node:worker_threads');
    const { createRequire } = await import('node:module');
    const libsql = createRequire(import.meta.url).resolve('@libsql/client');
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { url, libsql } });
    w.unref(); // an idle reader never keeps the process alive
    w.on('message', (r: Reply) => {
      const p = pending.get(r.id);
      pending.delete(r.id);
      p?.resolve(r);
    });
    w.on('error', (err: Error) => failAll(err));
    w.on('exit', (code: number) => failAll(new Error(`SQLite read worker exited (${code})`)));
    return w;
  };

  return {
    async read(sql, args) {
      worker ??= start();
      const w = await worker;
      const id = ++next;
      const reply = await new Promise<Reply>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, sql, args: sqliteArgs(args) });
      });
      if (reply.error !== undefined) throw new Error(reply.error);
      const cols = reply.columns!;
      return reply.rows!.map((r) => Object.fromEntries(cols.map((c, i) => [c, r[i]])));
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await (await w).terminate();
    },
  };
}
