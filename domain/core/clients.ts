// Per-protocol client entries of the core config (spec: "Core config emission per protocol") and the matching
// user for live changes through the core's HandlerService. Pure.
import type { Json, Protocol } from '../inbounds/model.js';
import type { CoreClient } from '../ports/core-view.js';
import type { CoreUser } from '../ports/core.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Shadowsocks 2022 ciphers (one key per user, no per-user method). */
export const isSs2022 = (method: string): boolean => method.startsWith('2022-');

/** Flow (vision) is only meaningful on a TCP (raw) inbound with tls or reality security. */
export function flowEligible(stream: Json): boolean {
  const net = str(stream.network) || 'tcp';
  const sec = str(stream.security) || 'none';
  return (net === 'tcp' || net === 'raw') && (sec === 'tls' || sec === 'reality');
}

/** The shadowsocks method a client runs with: its own (legacy ciphers), else the inbound's. */
export function ssMethod(client: CoreClient, inboundSettings: Json): string {
  const inbound = str(inboundSettings.method);
  if (isSs2022(inbound)) return inbound;
  return client.method || inbound;
}

/**
 * The `settings.clients[]` entry for one client: VLESS id, flow, reverse; VMess id, security; Trojan password,
 * flow; Shadowsocks password, method; Hysteria auth; every protocol email. Null for protocols without clients.
 */
export function clientEntry(
  protocol: Protocol,
  client: CoreClient,
  inbound: { settings: Json; streamSettings: Json },
): Json | null {
  const flow = client.flow && flowEligible(inbound.streamSettings) ? client.flow : '';
  switch (protocol) {
    case 'vless': {
      const e: Json = { id: client.uuid, email: client.email };
      if (flow) e.flow = flow;
      if (client.reverse?.tag) e.reverse = { tag: client.reverse.tag };
      return e;
    }
    case 'vmess':
      return { id: client.uuid, security: client.security || 'auto', email: client.email };
    case 'trojan': {
      const e: Json = { password: client.password, email: client.email };
      if (flow) e.flow = flow;
      return e;
    }
    case 'shadowsocks': {
      const method = ssMethod(client, inbound.settings);
      // Xray refuses a per-user method on a shadowsocks-2022 multi-user inbound; the key is the password.
      return isSs2022(method)
        ? { password: client.password, email: client.email }
        : { password: client.password, method, email: client.email };
    }
    case 'hysteria':
    case 'hysteria2':
      return { auth: client.auth, email: client.email };
    default:
      return null;
  }
}

/** The user for HandlerService AddUser; the account type is derived later from the inbound's protocol. */
export function coreUser(
  protocol: Protocol,
  client: CoreClient,
  inbound: { settings: Json; streamSettings: Json },
): CoreUser {
  const flow = client.flow && flowEligible(inbound.streamSettings) ? client.flow : undefined;
  switch (protocol) {
    case 'vless':
      return { email: client.email, id: client.uuid, flow };
    case 'vmess':
      return { email: client.email, id: client.uuid, security: client.security || 'auto' };
    case 'trojan':
      return { email: client.email, password: client.password, flow };
    case 'shadowsocks':
      return { email: client.email, password: client.password, method: ssMethod(client, inbound.settings) };
    case 'hysteria':
    case 'hysteria2':
      return { email: client.email, auth: client.auth };
    default:
      return { email: client.email };
  }
}
