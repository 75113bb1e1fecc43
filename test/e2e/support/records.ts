// Creating inbounds and clients through the API for end-to-end tests.
import type { Panel } from './panel.js';
import { freePort } from './ports.js';

export interface InboundSpec {
  protocol: string;
  port?: number;
  settings?: Record<string, unknown>;
  streamSettings?: Record<string, unknown>;
  remark?: string;
  enable?: boolean;
}

export interface CreatedInbound {
  id: number;
  port: number;
  tag: string;
  protocol: string;
}

export async function addInbound(panel: Panel, spec: InboundSpec): Promise<CreatedInbound> {
  const port = spec.port ?? (await freePort());
  const r = await panel.api('POST', '/panel/api/inbounds/add', {
    remark: spec.remark ?? `${spec.protocol}-${port}`,
    enable: spec.enable ?? true,
    listen: '127.0.0.1',
    port,
    protocol: spec.protocol,
    expiryTime: 0,
    total: 0,
    settings: spec.settings ?? {},
    streamSettings: spec.streamSettings ?? { network: 'tcp', security: 'none' },
    sniffing: {},
  });
  if (!r.success) throw new Error(`inbound add failed: ${r.msg}`);
  return { id: r.obj.id, port, tag: r.obj.tag, protocol: spec.protocol };
}

export interface StoredClient {
  email: string;
  uuid: string;
  password: string;
  auth: string;
  enable: boolean;
}

export async function getClient(panel: Panel, email: string): Promise<StoredClient> {
  const r = await panel.api('GET', `/panel/api/clients/get/${encodeURIComponent(email)}`);
  if (!r.success) throw new Error(`client get failed: ${r.msg}`);
  return r.obj.client as StoredClient;
}

export async function addClient(
  panel: Panel,
  email: string,
  inboundIds: number | number[],
  extra: Record<string, unknown> = {},
): Promise<StoredClient> {
  const r = await panel.api('POST', '/panel/api/clients/add', {
    client: { email, enable: true, ...extra },
    inboundIds: ([] as number[]).concat(inboundIds),
  });
  if (!r.success) throw new Error(`client add failed: ${r.msg}`);
  return getClient(panel, email);
}
