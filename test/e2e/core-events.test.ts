// Real core + WebSocket: stopping and restarting the core push `coreState` and `notification` messages to a
// browser session's WebSocket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN, eventually, killAll, startPanel, testCoreBin, type Panel } from './support/index.js';

const bin = testCoreBin();

describe.skipIf(!bin)('core state over the WebSocket (real core)', () => {
  let panel: Panel;
  let ws: WebSocket;
  const messages: any[] = [];

  beforeAll(async () => {
    panel = await startPanel({ coreBin: bin! });
    await eventually(() => panel.corePid(), 5000);
    const login = await fetch(new URL('login', panel.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const origin = new URL(panel.url).origin;
    ws = new WebSocket(`${origin.replace('http', 'ws')}/ws`, { headers: { cookie }, origin });
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
  });
  afterAll(async () => {
    ws?.close();
    await panel?.stop();
    await killAll();
  });

  const seen = (pred: (m: any) => boolean) => eventually(() => messages.find(pred), 5000);

  it('stopCoreService pushes coreState "stopped" and a notification; restartCoreService pushes "running"', async () => {
    expect((await panel.api('POST', '/panel/api/server/stopCoreService')).success).toBe(true);
    await seen((m) => m.type === 'coreState' && m.data === 'stopped');
    await seen((m) => m.type === 'notification' && /stopped/i.test(m.title) && typeof m.severity === 'string');

    messages.length = 0;
    expect((await panel.api('POST', '/panel/api/server/restartCoreService')).success).toBe(true);
    await seen((m) => m.type === 'coreState' && m.data === 'running');
    await seen((m) => m.type === 'notification' && /restarted/i.test(m.title) && m.severity === 'success');
  });
});
