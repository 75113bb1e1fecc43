import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../../domain/shared/events.js';
import { PushHub, type PushSocket } from '../../domain/push/hub.js';
import { checkUpgrade, sameOrigin } from '../../domain/push/upgrade.js';
import { emptySnapshot } from '../../domain/status/model.js';

class FakeSocket implements PushSocket {
  sent: string[] = [];
  buffered = 0;
  pings = 0;
  closedWith: { code: number; reason: string } | null = null;
  terminated = false;
  failSend = false;
  send(text: string) {
    if (this.failSend) throw new Error('socket gone');
    this.sent.push(text);
  }
  bufferedAmount() {
    return this.buffered;
  }
  ping() {
    this.pings++;
  }
  close(code: number, reason: string) {
    this.closedWith = { code, reason };
  }
  terminate() {
    this.terminated = true;
  }
  messages() {
    return this.sent.map((s) => JSON.parse(s));
  }
  ofType(type: string) {
    return this.messages().filter((m) => m.type === type);
  }
}

describe('push hub', () => {
  let events: EventBus;
  let hub: PushHub;
  beforeEach(() => {
    vi.useFakeTimers();
    events = new EventBus();
    hub = new PushHub({ maxBufferedBytes: 10_000, pingMs: 30_000 });
    hub.attach(events);
  });
  afterEach(() => {
    hub.close();
    vi.useRealTimers();
  });

  const connect = (n = 1) =>
    Array.from({ length: n }, () => {
      const s = new FakeSocket();
      const conn = hub.connect(s);
      return Object.assign(s, { conn });
    });

  it('pushes every status sample to every connection, serialised once', () => {
    const [a, b] = connect(2);
    const snap = emptySnapshot('1.0.0');
    events.emit('status.sampled', snap);
    expect(a!.messages()).toEqual([{ type: 'status', data: snap }]);
    expect(b!.sent[0]).toBe(a!.sent[0]);
    expect(hub.stats.messages).toBe(1);
  });

  it('gives a new connection the latest status at once', () => {
    events.emit('status.sampled', emptySnapshot('1.0.0'));
    const [late] = connect();
    expect(late!.ofType('status')).toHaveLength(1);
  });

  it('sends coreState and notification in the spec shapes', () => {
    const [a] = connect();
    events.emit('core.state', { state: 'running' });
    events.emit('core.state', { state: 'error', error: 'exit code 2' });
    events.emit('notification', { title: 'Core restarted', body: 'core 1.8 is running', severity: 'success' });
    expect(a!.messages()).toEqual([
      { type: 'coreState', data: 'running' },
      { type: 'coreState', data: 'error', error: 'exit code 2' },
      { type: 'notification', title: 'Core restarted', body: 'core 1.8 is running', severity: 'success' },
    ]);
  });

  it('merges a burst of changes into one invalidate per resource', () => {
    const [a] = connect();
    for (let i = 0; i < 20; i++) events.emit('clients.changed', { emails: [`u${i}`], action: 'add' });
    events.emit('inbounds.changed', { ids: [1], action: 'update' });
    expect(a!.ofType('invalidate')).toEqual([]); // held for the merge window
    vi.advanceTimersByTime(250);
    expect(a!.ofType('invalidate')).toEqual([
      { type: 'invalidate', resource: 'clients' },
      { type: 'invalidate', resource: 'inbounds' },
    ]);
    events.emit('clients.changed', { emails: ['x'], action: 'del' });
    vi.advanceTimersByTime(250);
    expect(a!.ofType('invalidate').filter((m) => m.resource === 'clients')).toHaveLength(2);
  });

  it('sends at most one invalidate per resource per 250 ms under a steady stream', () => {
    const [a] = connect();
    for (let ms = 0; ms < 1000; ms += 10) {
      events.emit('clients.changed', { emails: 'all', action: 'bulk' });
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(250);
    const n = a!.ofType('invalidate').length;
    expect(n).toBeGreaterThanOrEqual(4);
    expect(n).toBeLessThanOrEqual(5);
  });

  it('maps every data-change event to its resource name', () => {
    const [a] = connect();
    events.emit('groups.changed', { action: 'create' });
    events.emit('settings.changed', { keys: ['webPort'] });
    events.emit('tokens.changed', { action: 'create' });
    events.emit('nodes.changed', { ids: [1], action: 'add' });
    vi.advanceTimersByTime(250);
    expect(
      a!
        .ofType('invalidate')
        .map((m) => m.resource)
        .sort(),
    ).toEqual(['groups', 'nodes', 'settings', 'tokens']);
  });

  it('does not hold timers for invalidations when nobody is connected', () => {
    events.emit('clients.changed', { emails: ['a'], action: 'add' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends traffic and client_stats with only the counters that moved', () => {
    const [a] = connect();
    events.emit('traffic.tick', {
      at: 0,
      inbounds: [
        { tag: 'in-1', up: 10, down: 20 },
        { tag: 'in-2', up: 0, down: 0 },
      ],
      outbounds: [{ tag: 'direct', up: 0, down: 0 }],
      clients: [
        { email: 'alice', up: 1, down: 2 },
        { email: 'bob', up: 0, down: 0 },
      ],
      onlines: ['alice'],
    });
    expect(a!.messages()).toEqual([
      { type: 'traffic', data: { inbounds: [{ tag: 'in-1', up: 10, down: 20 }], outbounds: [], onlines: ['alice'] } },
      { type: 'client_stats', data: { clients: [{ email: 'alice', up: 1, down: 2 }] } },
    ]);
    // Nothing moved and the same clients online: nothing to say.
    events.emit('traffic.tick', {
      at: 0,
      inbounds: [{ tag: 'in-1', up: 0, down: 0 }],
      outbounds: [],
      clients: [],
      onlines: ['alice'],
    });
    expect(a!.sent).toHaveLength(2);
    // Nothing moved but alice went offline: traffic carries the new online list.
    events.emit('traffic.tick', { at: 0, inbounds: [], outbounds: [], clients: [], onlines: [] });
    expect(a!.messages()[2]).toEqual({ type: 'traffic', data: { inbounds: [], outbounds: [], onlines: [] } });
  });

  it('drops a slow client past the buffer bound; the others keep receiving', () => {
    const [slow, fast] = connect(2);
    slow!.buffered = 9_990;
    events.emit('status.sampled', emptySnapshot('1.0.0'));
    expect(slow!.terminated).toBe(true);
    expect(slow!.sent).toEqual([]);
    expect(fast!.sent).toHaveLength(1);
    expect(hub.size).toBe(1);
    expect(hub.stats.dropped).toBe(1);
    events.emit('status.sampled', emptySnapshot('1.0.0'));
    expect(fast!.sent).toHaveLength(2);
  });

  it('drops a connection whose send throws', () => {
    const [broken, ok] = connect(2);
    broken!.failSend = true;
    hub.broadcast({ type: 'notification', title: 't', body: 'b', severity: 'info' });
    expect(hub.size).toBe(1);
    expect(ok!.sent).toHaveLength(1);
  });

  it('pings every 30 s and drops a peer that never answered', () => {
    hub.start();
    const [quiet, lively] = connect(2);
    vi.advanceTimersByTime(30_000);
    expect(quiet!.pings).toBe(1);
    expect(lively!.pings).toBe(1);
    lively!.conn.alive(); // pong
    vi.advanceTimersByTime(30_000);
    expect(quiet!.terminated).toBe(true);
    expect(lively!.terminated).toBe(false);
    expect(lively!.pings).toBe(2);
    expect(hub.size).toBe(1);
  });

  it('forgets a socket that closed', () => {
    const [a] = connect();
    a!.conn.closed();
    expect(hub.size).toBe(0);
    events.emit('status.sampled', emptySnapshot('1.0.0'));
    expect(a!.sent).toEqual([]);
  });

  it('closes every connection with 1001 on a graceful stop and drops pending merges', () => {
    hub.start();
    const socks = connect(3);
    events.emit('clients.changed', { emails: ['a'], action: 'add' });
    hub.close('panel stopping');
    for (const s of socks) expect(s.closedWith).toEqual({ code: 1001, reason: 'panel stopping' });
    expect(hub.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('WebSocket upgrade check', () => {
  const base = {
    session: true,
    bearer: false,
    origin: 'http://panel.example:2053',
    host: 'panel.example:2053',
    secure: false,
  };

  it("accepts a session cookie from the panel's own origin", () => {
    expect(checkUpgrade(base)).toEqual({ ok: true });
  });

  it('refuses a Bearer token alone, and no credentials at all', () => {
    expect(checkUpgrade({ ...base, session: false, bearer: true })).toEqual({
      ok: false,
      kind: 'unauthenticated',
      reason: 'the WebSocket accepts only a session cookie; Bearer tokens are refused',
    });
    expect(checkUpgrade({ ...base, session: false })).toMatchObject({ ok: false, kind: 'unauthenticated' });
  });

  it('refuses a foreign Origin', () => {
    expect(checkUpgrade({ ...base, origin: 'http://evil.example' })).toMatchObject({ ok: false, kind: 'forbidden' });
    expect(checkUpgrade({ ...base, origin: 'http://panel.example:9999' })).toMatchObject({
      ok: false,
      kind: 'forbidden',
    });
    expect(checkUpgrade({ ...base, origin: 'null' })).toMatchObject({ ok: false, kind: 'forbidden' });
  });

  it('accepts a session without Origin (a script or CLI; a browser always sends one), but not without a session', () => {
    expect(checkUpgrade({ ...base, origin: undefined })).toEqual({ ok: true });
    expect(checkUpgrade({ ...base, origin: undefined, session: false })).toMatchObject({
      ok: false,
      kind: 'unauthenticated',
    });
  });

  it('treats default ports as the same origin', () => {
    expect(sameOrigin('https://panel.example', 'panel.example:443')).toBe(true);
    expect(sameOrigin('http://panel.example', 'PANEL.example')).toBe(true);
    expect(sameOrigin('https://panel.example', 'panel.example:80')).toBe(false);
    expect(sameOrigin('http://[::1]:2053', '[::1]:2053')).toBe(true);
    expect(sameOrigin('ftp://panel.example', 'panel.example')).toBe(false);
  });

  it('refuses an Origin with userinfo, a path or a trailing slash, and http when the panel serves TLS', () => {
    expect(sameOrigin('http://user@panel.example', 'panel.example')).toBe(false);
    expect(sameOrigin('http://user:pw@panel.example', 'panel.example')).toBe(false);
    expect(sameOrigin('http://panel.example/', 'panel.example')).toBe(false);
    expect(sameOrigin('http://panel.example/x', 'panel.example')).toBe(false);
    expect(sameOrigin('https://panel.example', 'panel.example', true)).toBe(true);
    expect(sameOrigin('http://panel.example', 'panel.example', true)).toBe(false);
    // Behind a TLS-terminating proxy the panel itself speaks http; the page's origin is https.
    expect(sameOrigin('https://panel.example', 'panel.example', false)).toBe(true);
    expect(checkUpgrade({ ...base, secure: true, origin: 'http://panel.example' })).toMatchObject({
      ok: false,
      kind: 'forbidden',
    });
  });
});
