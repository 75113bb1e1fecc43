// The inbounds page's calls beyond the shared list/add ones in api.ts: update, get, import, fallbacks, the nodes an
// inbound may be bound to, and the server's key generators.
import { call, type InboundRow } from '../api';
import type { Protocol } from '../../../domain/inbounds/model.js';
import type { NodeView } from '../../../domain/nodes/model.js';

/** An inbound row with the node it is bound to (null: the local core); the API sends it, api.ts does not type it. */
export type BoundInbound = InboundRow & { nodeId?: number | null };

/** What the inbounds page needs of a node: its id and name. */
export type NodeBrief = Pick<NodeView, 'id' | 'name'>;

/** Protocols that may be bound to a node: a copy of NODE_CAPABLE_PROTOCOLS (the UI takes only types from domain). */
export const NODE_CAPABLE: readonly Protocol[] = ['shadowsocks', 'vless', 'vmess', 'trojan', 'hysteria', 'hysteria2'];
export const nodeCapable = (p: string) => (NODE_CAPABLE as readonly string[]).includes(p);

export interface VlessEncAuth {
  id: number;
  label: string;
  encryption: string;
  decryption: string;
}

export interface FallbackRule {
  childId: number;
  name?: string;
  alpn?: string;
  path?: string;
  xver?: number;
}

export const inboundsApi = {
  nodes: () => call<NodeBrief[]>('GET', 'panel/api/nodes/list'),
  get: (id: number) => call<InboundRow>('GET', `panel/api/inbounds/get/${id}`),
  update: (id: number, body: Record<string, unknown>) =>
    call<InboundRow>('POST', `panel/api/inbounds/update/${id}`, body),
  import: (data: string) => call<InboundRow>('POST', 'panel/api/inbounds/import', { data }),
  fallbacks: (id: number) => call<(FallbackRule & { id?: number })[]>('GET', `panel/api/inbounds/${id}/fallbacks`),
  setFallbacks: (id: number, fallbacks: FallbackRule[]) =>
    call<unknown>('POST', `panel/api/inbounds/${id}/fallbacks`, { fallbacks }),

  x25519: () => call<{ privateKey: string; publicKey: string }>('GET', 'panel/api/server/getNewX25519Cert'),
  mldsa65: () => call<{ privateKey: string; publicKey: string; seed: string }>('GET', 'panel/api/server/getNewmldsa65'),
  mlkem768: () => call<{ clientKey: string; serverKey: string }>('GET', 'panel/api/server/getNewmlkem768'),
  vlessEnc: () => call<{ auths: VlessEncAuth[] }>('GET', 'panel/api/server/getNewVlessEnc'),
  ech: (sni: string) =>
    call<{ echKeySet: string; echServerKeys: string[]; echConfigList: string }>(
      'POST',
      'panel/api/server/getNewEchCert',
      {
        sni,
      },
    ),
  uuid: () => call<string>('GET', 'panel/api/server/getNewUUID'),
};
