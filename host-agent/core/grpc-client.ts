// The core's gRPC API (HandlerService, StatsService) for both flavours, from host-agent/proto/core_api.proto.
// Service paths and TypedMessage type names carry the flavour prefix (`xray.` or `v2ray.core.`).
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import type { CoreFlavour, CoreStat, CoreUser } from '../../domain/ports/core.js';
import type { Protocol } from '../../domain/inbounds/model.js';
import { decodeQueryStats } from './stats-decode.js';

export const PROTO_PATH = fileURLToPath(new URL('../proto/core_api.proto', import.meta.url));

const packageDef = protoLoader.loadSync(PROTO_PATH, { keepCase: true, longs: String, enums: Number, defaults: true });
const root = protobuf.loadSync(PROTO_PATH);
const msg = (name: string) => root.lookupType(`panelcore.${name}`);

export const prefixOf = (flavour: CoreFlavour): string => (flavour === 'v2ray' ? 'v2ray.core.' : 'xray.');

/** Shadowsocks cipher enums differ between the flavours (core-notes.md). */
const SS_CIPHERS: Record<'xray' | 'v2ray', Record<string, number>> = {
  v2ray: { 'aes-128-gcm': 1, 'aes-256-gcm': 2, 'chacha20-poly1305': 3, 'chacha20-ietf-poly1305': 3, none: 4, plain: 4 },
  xray: {
    'aes-128-gcm': 5,
    'aes-256-gcm': 6,
    'chacha20-poly1305': 7,
    'chacha20-ietf-poly1305': 7,
    'xchacha20-poly1305': 8,
    'xchacha20-ietf-poly1305': 8,
    none: 9,
    plain: 9,
  },
};
const VMESS_SECURITY: Record<string, number> = { auto: 2, 'aes-128-gcm': 3, 'chacha20-poly1305': 4, none: 5, zero: 6 };

export class UnsupportedLiveChange extends Error {}

function typed(type: string, name: string, value: Record<string, unknown>) {
  const t = msg(name);
  return { type, value: Buffer.from(t.encode(t.fromObject(value)).finish()) };
}

/** The account TypedMessage for a user, its type derived from the inbound's protocol (never from input). */
export function accountFor(flavour: CoreFlavour, protocol: Protocol, user: CoreUser) {
  const p = prefixOf(flavour);
  const fl: 'xray' | 'v2ray' = flavour === 'v2ray' ? 'v2ray' : 'xray';
  switch (protocol) {
    case 'vless':
      return typed(`${p}proxy.vless.Account`, 'VlessAccount', {
        id: user.id ?? '',
        flow: user.flow ?? '',
        encryption: 'none',
      });
    case 'vmess':
      return typed(`${p}proxy.vmess.Account`, 'VmessAccount', {
        id: user.id ?? '',
        security_settings: { type: VMESS_SECURITY[user.security || 'auto'] ?? 2 },
      });
    case 'trojan':
      return typed(`${p}proxy.trojan.Account`, 'TrojanAccount', { password: user.password ?? '' });
    case 'shadowsocks': {
      const method = user.method ?? '';
      if (method.startsWith('2022-')) {
        if (fl !== 'xray') throw new UnsupportedLiveChange('V2Ray has no shadowsocks-2022');
        return typed('xray.proxy.shadowsocks_2022.Account', 'Shadowsocks2022Account', { key: user.password ?? '' });
      }
      if (fl === 'v2ray')
        throw new UnsupportedLiveChange("V2Ray's shadowsocks inbound is single-user (not a UserManager)");
      const cipher = SS_CIPHERS[fl][method];
      if (!cipher) throw new UnsupportedLiveChange(`unknown shadowsocks method "${method}"`);
      return typed(`${p}proxy.shadowsocks.Account`, 'ShadowsocksAccount', {
        password: user.password ?? '',
        cipher_type: cipher,
      });
    }
    case 'hysteria':
    case 'hysteria2':
      if (fl !== 'xray') throw new UnsupportedLiveChange('V2Ray has no hysteria');
      return typed('xray.proxy.hysteria.account.Account', 'HysteriaAccount', { auth: user.auth ?? '' });
    default:
      throw new UnsupportedLiveChange(`${protocol} inbounds have no users`);
  }
}

/** Encodes an AddUser / RemoveUser operation as the TypedMessage AlterInbound takes. */
export function addUserOperation(flavour: CoreFlavour, protocol: Protocol, user: CoreUser) {
  const p = prefixOf(flavour);
  return typed(`${p}app.proxyman.command.AddUserOperation`, 'AddUserOperation', {
    user: { level: 0, email: user.email, account: accountFor(flavour, protocol, user) },
  });
}

export function removeUserOperation(flavour: CoreFlavour, email: string) {
  return typed(`${prefixOf(flavour)}app.proxyman.command.RemoveUserOperation`, 'RemoveUserOperation', { email });
}

/** The serialised inbound handler configs of a `core.Config` (as `v2ctl config` prints it). */
export function inboundsOfCoreConfig(bytes: Uint8Array): Uint8Array[] {
  const decoded = msg('CoreConfig').decode(bytes) as unknown as { inbound: Uint8Array[] };
  return decoded.inbound ?? [];
}

function serviceClient(service: string, path: string) {
  const def = packageDef[`panelcore.${service}`] as grpc.ServiceDefinition;
  const rewritten: Record<string, grpc.MethodDefinition<any, any>> = {};
  for (const [name, d] of Object.entries(def))
    rewritten[name] = { ...(d as grpc.MethodDefinition<any, any>), path: `/${path}/${name}` };
  // QueryStats answers with every counter (200,000 at 100k clients): read straight into CoreStat[].
  if (service === 'StatsService')
    rewritten.QueryStats = { ...rewritten.QueryStats!, responseDeserialize: decodeQueryStats };
  return grpc.makeGenericClientConstructor(rewritten as grpc.ServiceDefinition, service);
}

export interface GrpcError extends Error {
  code?: number;
  details?: string;
}

/** "User X already exists." / "User X not found." / "… not found": idempotent outcomes. */
export const isAlreadyExists = (e: GrpcError): boolean => /already exists/i.test(e.details ?? e.message);
export const isNotFound = (e: GrpcError): boolean => /not found/i.test(e.details ?? e.message);

const DEADLINE_MS = 5000;

// gRPC's generated clients are untyped: their methods are looked up by name.
type AnyFunction = (...args: any[]) => any;

export class CoreApiClient {
  private handler: grpc.Client & Record<string, AnyFunction>;
  private stats: grpc.Client & Record<string, AnyFunction>;

  constructor(
    readonly address: string,
    readonly flavour: CoreFlavour,
  ) {
    const p = prefixOf(flavour);
    const creds = grpc.credentials.createInsecure();
    const H = serviceClient('HandlerService', `${p}app.proxyman.command.HandlerService`);
    const S = serviceClient('StatsService', `${p}app.stats.command.StatsService`);
    this.handler = new H(address, creds) as any;
    this.stats = new S(address, creds) as any;
  }

  private call<T>(client: Record<string, AnyFunction>, method: string, req: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      client[method]!.call(client, req, { deadline: Date.now() + DEADLINE_MS }, (err: GrpcError | null, res: T) =>
        err ? reject(err) : resolve(res),
      );
    });
  }

  async addUser(tag: string, protocol: Protocol, user: CoreUser): Promise<void> {
    try {
      await this.call(this.handler, 'AlterInbound', { tag, operation: addUserOperation(this.flavour, protocol, user) });
    } catch (e) {
      if (!isAlreadyExists(e as GrpcError)) throw e;
    }
  }

  async removeUser(tag: string, email: string): Promise<void> {
    try {
      await this.call(this.handler, 'AlterInbound', { tag, operation: removeUserOperation(this.flavour, email) });
    } catch (e) {
      if (!isNotFound(e as GrpcError)) throw e;
    }
  }

  async addInboundBytes(inbound: Uint8Array): Promise<void> {
    await this.call(this.handler, 'AddInbound', { inbound: Buffer.from(inbound) });
  }

  async removeInbound(tag: string): Promise<void> {
    try {
      await this.call(this.handler, 'RemoveInbound', { tag });
    } catch (e) {
      // V2Ray answers an unknown tag with "not enough information for making a decision".
      if (!isNotFound(e as GrpcError) && !/not enough information/i.test((e as GrpcError).details ?? '')) throw e;
    }
  }

  async queryStats(pattern = ''): Promise<CoreStat[]> {
    return this.call<CoreStat[]>(this.stats, 'QueryStats', { pattern, reset: false });
  }

  close(): void {
    this.handler.close();
    this.stats.close();
  }
}
