// The `traffic` and `client_stats` WebSocket messages end to end: the built panel with the real core, a real
// proxy client moving bytes through a VMess inbound, and a session-authenticated `ws` client. The bytes moved
// appear in the next messages for that client and that inbound (and only the clients that moved are listed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  ADMIN,
  addClient,
  addInbound,
  curlSocksEventually,
  eventually,
  killAll,
  startPanel,
  startTarget,
  testCoreBin,
  v2rayClient,
  vmessOutbound,
  type Panel,
  type Target,
} from './support/index.js';

const bin = testCoreBin();
const SIZE = 700_000;

describe.skipIf(!bin)('traffic and client_stats events (real core, real client)', () => {
  let panel: Panel;
  let target: Target;
  let ws: WebSocket;
  const messages: any[] = [];

  beforeAll(async () => {
    target = await startTarget();
    panel = await startPanel({ coreBin: bin!, env: { PANEL_TRAFFIC_INTERVAL_MS: '500' } });
    await eventually(() => panel.corePid(), 5000);
    const login = await fetch(new URL('login', panel.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    ws = new WebSocket(`${panel.url.replace(/^http/, 'ws')}ws`, {
      headers: { cookie },
      origin: panel.url.replace(/\/$/, ''),
    });
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
  }, 60_000);
  afterAll(async () => {
    ws?.close();
    await panel?.stop();
    await target?.close();
    await killAll();
  });

  it('bytes through one client show up in client_stats for it and in traffic for its inbound', async () => {
    const ib = await addInbound(panel, { protocol: 'vmess' });
    const mover = await addClient(panel, 'mover@events', ib.id);
    await addClient(panel, 'idle@events', ib.id);
    const client = await v2rayClient(bin!, vmessOutbound(ib.port, mover.uuid));
    const from = messages.length;
    const d = await curlSocksEventually(client.socksPort, target.url(`/bytes/${SIZE}`));
    expect(d.bytes).toBe(SIZE);

    const sum = (
      type: string,
      pick: (m: any) => { up: number; down: number }[] | undefined,
      key: string,
      name: string,
    ) => {
      let up = 0;
      let down = 0;
      for (const m of messages.slice(from)) {
        if (m.type !== type) continue;
        for (const row of pick(m) ?? [])
          if ((row as any)[key] === name) {
            up += row.up;
            down += row.down;
          }
      }
      return { up, down };
    };
    // Counters are payload bytes: the body plus the HTTP response head, the request upward.
    const stats = (await eventually(
      () => {
        const s = sum('client_stats', (m) => m.data?.clients, 'email', 'mover@events');
        return s.down >= SIZE ? s : undefined;
      },
      15_000,
      100,
    ))!;
    expect(stats.down).toBeLessThan(SIZE + 4096);
    expect(stats.up).toBeGreaterThan(0);
    const inbound = (await eventually(
      () => {
        const s = sum('traffic', (m) => m.data?.inbounds, 'tag', ib.tag);
        return s.down >= SIZE ? s : undefined;
      },
      15_000,
      100,
    ))!;
    // The inbound's counter includes the VMess framing and padding around the payload (a few per cent).
    expect(inbound.down).toBeGreaterThanOrEqual(stats.down);
    expect(inbound.down).toBeLessThan(SIZE * 1.1);
    // The idle client moved nothing and is never listed; the mover shows as online.
    const listed = messages
      .slice(from)
      .filter((m) => m.type === 'client_stats')
      .flatMap((m) => m.data.clients.map((c: any) => c.email));
    expect(listed).not.toContain('idle@events');
    expect(messages.slice(from).some((m) => m.type === 'traffic' && m.data.onlines.includes('mover@events'))).toBe(
      true,
    );
    await client.stop();
  }, 60_000);
});
