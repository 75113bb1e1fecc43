// The config test's time limit grows with the clients the core has to set up (host-agent/core/supervisor.ts).
import { describe, expect, it } from 'vitest';
import { testTimeoutMs } from '../../host-agent/core/supervisor.js';

const inbound = (clients: number) => ({
  protocol: 'vmess',
  settings: { clients: Array.from({ length: clients }, (_, i) => ({ id: `${i}` })) },
});

describe('testTimeoutMs', () => {
  it('is 30 s for a config without clients, plus 2 ms for every client of every inbound', () => {
    expect(testTimeoutMs({})).toBe(30_000);
    expect(testTimeoutMs({ inbounds: [{ protocol: 'dokodemo-door', settings: {} }] })).toBe(30_000);
    expect(testTimeoutMs({ inbounds: [inbound(30_000), inbound(20_000), { protocol: 'socks' }] })).toBe(
      30_000 + 2 * 50_000,
    );
  });

  it('ignores what is not an inbound list with client arrays', () => {
    expect(testTimeoutMs({ inbounds: 'x' })).toBe(30_000);
    expect(testTimeoutMs({ inbounds: [null, 5, { settings: { clients: 'many' } }] })).toBe(30_000);
  });
});
