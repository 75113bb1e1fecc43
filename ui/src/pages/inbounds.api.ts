// The inbounds page's calls beyond the shared list/add ones in api.ts: update, get, import, fallbacks and the
// server's key generators.
import { call, type InboundRow } from '../api';

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
