// The provider integrations' outside addresses (RUNTIME.md): overridable for a mirror, a proxy in front of the
// service, or a local stand-in; the device name the tunnel service shows is this host's name.
import { hostname } from 'node:os';

export function providerOptions(env: NodeJS.ProcessEnv = process.env) {
  return {
    tunnelApi: env.PANEL_PROVIDER_A_URL || undefined,
    vpnApi: env.PANEL_PROVIDER_B_URL || undefined,
    deviceName: hostname(),
    // The services behind a proxy or mirror on a private network (and the end-to-end tests' stand-ins).
    allowPrivate: env.PANEL_PROVIDER_ALLOW_PRIVATE === 'true',
  };
}
