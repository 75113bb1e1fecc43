// Foundation figures: a login (PBKDF2-SHA256, 600,000 iterations: deliberately slow), and the per-request cost
// of authentication through createPanelApp — a session cookie (JWT check + cached user version) and a Bearer
// token (one indexed lookup per request) — plus a settings update (validate + one transaction).
import { openStore } from '../storage/store.js';
import { createServices } from '../domain/services.js';
import { EventBus } from '../domain/shared/events.js';
import { systemClock } from '../domain/shared/clock.js';
import { createPanelApp } from '../handlers/app.js';
import { FakeCore } from '../test/support/fake-core.js';
import { median, type Benchmark, type BenchRow } from './types.js';
import { eachDatabase } from './databases.js';

const ADMIN = { username: 'admin', password: 'bench password' };

async function timeEach(n: number, fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

async function run(db: 'libsql' | 'pg', url: string, log: (l: string) => void): Promise<BenchRow[]> {
  const store = await openStore(url);
  try {
    const services = createServices({
      store,
      core: new FakeCore(),
      clock: systemClock,
      events: new EventBus(),
      files: { isReadableFile: async () => true },
      panel: { requestRestart: () => {} },
      runtime: { panelVersion: 'bench', dataDir: '' },
    });
    await services.init();
    await services.auth.ensureAdmin(ADMIN.username, ADMIN.password);
    const app = createPanelApp({ services, clientIp: () => '127.0.0.1', basePath: '/', secure: false });
    const loginReq = () =>
      app.request('/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });

    log(`${db}: login`);
    const loginMs = await timeEach(5, loginReq);
    const cookie = (await loginReq()).headers.get('set-cookie')!.split(';')[0]!;
    const token = (await services.tokens.create('bench')).token;
    const csrf = (await (await app.request('/csrf-token', { headers: { cookie } })).json()).obj as string;

    log(`${db}: authenticated requests`);
    const cookieMs = await timeEach(500, () => app.request('/panel/setting/apiTokens', { headers: { cookie } }));
    const bearerMs = await timeEach(500, () =>
      app.request('/panel/setting/apiTokens', { headers: { authorization: `Bearer ${token}` } }),
    );
    let n = 0;
    const updateMs = await timeEach(200, () =>
      app.request('/panel/setting/update', {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ subTitle: `title ${n++}`, subUpdates: 1 + (n % 50) }),
      }),
    );
    return [
      { name: 'POST /login (PBKDF2 600k)', db, value: loginMs, unit: 'ms', target: 'slow on purpose' },
      { name: 'GET apiTokens with session cookie', db, value: cookieMs, unit: 'ms' },
      { name: 'GET apiTokens with Bearer token', db, value: bearerMs, unit: 'ms' },
      { name: 'POST /panel/setting/update (2 keys)', db, value: updateMs, unit: 'ms' },
    ];
  } finally {
    await store.close();
  }
}

const bench: Benchmark = async ({ pgUrl, log }) => {
  return eachDatabase({ pgUrl }, 'panel_bench_foundation', (db, url) => run(db, url, log));
};
export default bench;
