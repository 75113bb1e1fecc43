// The server half of the clients benchmark, run as a child process (bench/clients.bench.ts forks it), so the
// resident memory figure is the server's own: createPanelApp over the store with the test app's composition
// (test/support/app.ts: manual clock, fake host and port probe, a core that runs no process), served by
// @hono/node-server on a loopback port. The parent seeds the database over its own connection and drives the API
// over HTTP. IPC commands: advance the clock, move counters (as the traffic job), report memory (after a full GC).
//
// It runs as plain JavaScript on the compiled build, like `npm start`: the parent compiles this file (and the test
// doubles it imports) next to the build in dist/ (bench/compile-child.ts), so `../domain/…` here is
// dist/domain/…, the code users run; no TypeScript loader in the process.
//
// The composition is createTestApp's (manual clock, fake host and port probe) with two differences, both about
// memory that only the test doubles would keep: the events are not recorded (TestApp.emitted keeps every payload:
// 50,000 emails per group rename), and the core is BenchCore below instead of FakeCore (which keeps every call with
// its arguments: every full config of 220,000 client entries).
import { serve } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { writeFileAtomic } from '../host-agent/core/files.js';
import { jsonText } from '../host-agent/core/json-text.js';
import type { CoreControl, CoreStatus } from '../domain/ports/core.js';
import { createTestApp } from '../test/support/app.js';

export type ServerCommand = {
  id: number;
  cmd: 'now' | 'advance' | 'memory' | 'stop' | 'traffic' | 'reload';
  ms?: number;
  emails?: string[];
};
export type ServerReply = { id: number; now?: number; rssAtGc?: number; maxRss?: number } & Partial<NodeJS.MemoryUsage>;

/**
 * FakeCore's answers (a running xray, no stats, every config accepted) without its call log, doing with each
 * config what CoreSupervisor does: `-test` gets the config as JSON text in pieces (host-agent/core/json-text.ts),
 * and the file is written from the same pieces (atomically). So the process holds what the real one holds
 * (nothing per config after the write) and pays the same transient text of every config write.
 */
class BenchCore implements CoreControl {
  private readonly dir = mkdtempSync(join(tmpdir(), 'panel-bench-core-'));
  private current: CoreStatus = { state: 'running', version: '1.8.24', flavour: 'xray', error: '', pid: 4242 };
  status(): CoreStatus {
    return { ...this.current };
  }
  output(): string {
    return '';
  }
  async test(config: object) {
    for (const piece of jsonText(config)) void piece; // what the supervisor pipes to `xray -test -config stdin:`
    return { ok: true, output: 'Configuration OK.' };
  }
  async restart(config: object) {
    await this.test(config);
    await this.writeConfig(config);
    this.current = { ...this.current, state: 'running', error: '' };
  }
  async stop() {
    if (this.current.state !== 'running') throw new Error('core is not running');
    this.current = { ...this.current, state: 'stopped', pid: null };
  }
  async addUser() {}
  async removeUser() {}
  async addInbound() {}
  async removeInbound() {}
  async queryStats() {
    return [];
  }
  async writeConfig(config: object) {
    writeFileAtomic(join(this.dir, 'config.json'), jsonText(config));
  }
  async probeOutbound() {
    return { success: true, delay: 12, error: '' };
  }
  close() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const core = new BenchCore();
const url = process.env.BENCH_DB_URL!;
const t = await createTestApp(
  { name: process.env.BENCH_DB_NAME === 'pg' ? 'pg' : 'libsql', freshUrl: async () => url },
  { deps: { core }, recordEvents: false },
);
const { app, store, clock } = t;

/**
 * The server's own time for each request (from the Request to the Response with its body built, e.g. the 10 MB
 * JSON text of inbounds/get), what app.request() measured in-process, reported in the `x-server-ms` header so the
 * figures exclude the loopback HTTP transport and the benchmark's client.
 */
const timedFetch = async (req: Request): Promise<Response> => {
  const t0 = performance.now();
  const res = await app.fetch(req);
  res.headers.set('x-server-ms', (performance.now() - t0).toFixed(3));
  return res;
};
const server = serve({ fetch: timedFetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.send!({ ready: true, port: info.port, now: clock.now() });
});

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

process.on('message', async (m: ServerCommand) => {
  const reply = (r: Omit<ServerReply, 'id'>) => process.send!({ id: m.id, ...r });
  switch (m.cmd) {
    case 'now':
      reply({ now: clock.now() });
      break;
    case 'advance':
      clock.advance(m.ms ?? 0);
      reply({ now: clock.now() });
      break;
    case 'reload':
      // The benchmark seeds over its own connection (no events, like another process): the catalog of the paged
      // list is read again as at a start with those clients, and the reply waits for it.
      t.services.clients.reloadCatalog();
      t.services.inbounds.dropCachedText();
      await t.services.clients.warmCatalog();
      reply({ now: clock.now() });
      break;
    case 'traffic': {
      // Counters moved for these clients, stored in this process at its clock and announced, as the traffic job does.
      const clients = (m.emails ?? []).map((email) => ({ email, up: 1000, down: 2000 }));
      await store.traffic.applyDeltas({ clients, inbounds: [], outbounds: [] }, clock.now());
      t.events.emit('traffic.tick', { at: clock.now(), clients, inbounds: [], outbounds: [], onlines: [] });
      reply({ now: clock.now() });
      break;
    }
    case 'memory': {
      // A full GC, then the pages it freed going back to the OS: V8 unmaps them (and frees dead buffers) on
      // background threads within ~100 ms, so an RSS read right after gc() still counts part of the garbage it
      // has just collected (215-574 MB for the same run). Reported: that first read, the settled RSS (two reads
      // 50 ms apart within 1 MB, at most 2 s) and the process's peak RSS.
      gc();
      const rssAtGc = process.memoryUsage.rss();
      let prev = rssAtGc;
      for (let i = 0; i < 40; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const rss = process.memoryUsage.rss();
        if (Math.abs(rss - prev) < 1024 * 1024) break;
        prev = rss;
      }
      reply({ ...process.memoryUsage(), rssAtGc, maxRss: process.resourceUsage().maxRSS * 1024 });
      break;
    }
    case 'stop':
      server.close();
      await store.close();
      core.close();
      reply({});
      process.disconnect();
      break;
  }
});
