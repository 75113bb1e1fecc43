// The nodes page's calls (/panel/api/nodes/*) and the inbound list it reads to show which inbounds are bound to
// which node. Types come from the domain (erased at build).
import { call } from '../api';
import type { NodeView, ProbeResult, NodeMetric } from '../../../domain/nodes/model.js';

export type { NodeView, ProbeResult, NodeMetric };

/** The body of add/update (update: an empty or omitted apiToken keeps the stored one). */
export interface NodeBody {
  name: string;
  remark: string;
  scheme: 'http' | 'https';
  address: string;
  port: number;
  basePath: string;
  apiToken?: string;
  clearApiToken?: boolean;
  enable: boolean;
  allowPrivateAddress: boolean;
  tlsMode?: 'verify' | 'pin' | 'skip';
  tlsPin?: string;
}

export type TestBody = Omit<NodeBody, 'name' | 'remark' | 'enable' | 'clearApiToken'>;

/** What the page needs of an inbound: its remark and where it runs. */
export interface BoundInbound {
  id: number;
  remark: string;
  protocol: string;
  port: number;
  nodeId: number | null;
}

/** History samples: `t` Unix seconds, `v` percent. */
export type Sample = { t: number; v: number };

const P = 'panel/api/nodes';

export const nodesApi = {
  list: () => call<NodeView[]>('GET', `${P}/list`),
  get: (id: number) => call<NodeView>('GET', `${P}/get/${id}`),
  add: (body: NodeBody) => call<NodeView>('POST', `${P}/add`, body),
  update: (id: number, body: NodeBody) => call<NodeView>('POST', `${P}/update/${id}`, body),
  del: (id: number) => call<null>('POST', `${P}/del/${id}`),
  setEnable: (id: number, enable: boolean) => call<null>('POST', `${P}/setEnable/${id}`, { enable }),
  test: (body: TestBody) => call<ProbeResult>('POST', `${P}/test`, body),
  probe: (id: number) => call<ProbeResult>('POST', `${P}/probe/${id}`),
  history: (id: number, metric: NodeMetric, bucket: number) =>
    call<Sample[]>('GET', `${P}/history/${id}/${metric}/${bucket}`),
  /** The slim inbound list (clients reduced to email/enable) carries each inbound's nodeId. */
  inbounds: () => call<BoundInbound[]>('GET', 'panel/api/inbounds/list/slim'),
};
