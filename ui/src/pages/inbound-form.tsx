// The inbound dialog for add, edit and clone: every protocol, transport and security the API accepts, keys from
// the server's generators, and the panel's message shown next to the field it names. Editing keeps every field
// of settings/streamSettings the form does not show (the form overlays what it edits on the stored objects).
// The combobox "Node" binds an inbound of a node-capable protocol to a node (or to the local core). Strings:
// inbound-form.i18n.ts.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { announce } from '../announce';
import { Dialog } from '../common';
import {
  inboundsApi,
  nodeCapable,
  type BoundInbound,
  type FallbackRule,
  type NodeBrief,
  type VlessEncAuth,
} from './inbounds.api';
import { t } from './inbound-form.i18n';

type Obj = Record<string, any>;

export const PROTOCOLS = [
  'vless',
  'vmess',
  'trojan',
  'shadowsocks',
  'hysteria2',
  'hysteria',
  'socks',
  'http',
  'mixed',
  'dokodemo',
  'wireguard',
] as const;
const TRANSPORTS = ['tcp', 'ws', 'grpc', 'httpupgrade', 'xhttp', 'kcp'];
const SS_METHODS = [
  '2022-blake3-aes-128-gcm',
  '2022-blake3-aes-256-gcm',
  '2022-blake3-chacha20-poly1305',
  'aes-256-gcm',
  'aes-128-gcm',
  'chacha20-ietf-poly1305',
  'xchacha20-ietf-poly1305',
];
const FINGERPRINTS = ['chrome', 'firefox', 'safari', 'edge', 'ios', 'android', 'random', 'randomized'];
const KCP_HEADERS = ['none', 'srtp', 'utp', 'wechat-video', 'dtls', 'wireguard'];
const XHTTP_MODES = ['auto', 'packet-up', 'stream-up', 'stream-one'];

/** Protocols that carry a stream (transport and security); the others listen on their own terms. */
const streamed = (p: string) => ['vless', 'vmess', 'trojan', 'shadowsocks'].includes(p);
const hysteriaLike = (p: string) => p === 'hysteria' || p === 'hysteria2';
const realityCapable = (p: string, net: string) =>
  (p === 'vless' || p === 'trojan') && ['tcp', 'grpc', 'xhttp'].includes(net);
const fallbackCapable = (p: string, net: string) => (p === 'vless' || p === 'trojan') && net === 'tcp';

const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const randomHex = (n: number) => Array.from(randomBytes(n), (b) => b.toString(16).padStart(2, '0')).join('');
const base64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
/** A shadowsocks key of the method's length (2022: 16 bytes for AES-128, 32 otherwise; legacy: any secret). */
export const ssKey = (method: string) => base64(randomBytes(method === '2022-blake3-aes-128-gcm' ? 16 : 32));
const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export type FormMode = { kind: 'add' } | { kind: 'edit'; row: BoundInbound } | { kind: 'clone'; row: BoundInbound };

/** The form's editable state, read from (or defaulted for) an inbound. */
interface Draft {
  protocol: string;
  port: string;
  remark: string;
  listen: string;
  totalGB: string;
  expiry: string;
  sniffing: boolean;
  /** The node the inbound runs on; null: the local core. */
  nodeId: number | null;
  settings: Obj;
  stream: Obj;
}

function draftOf(mode: FormMode): Draft {
  if (mode.kind === 'add') {
    return {
      protocol: 'vless',
      port: String(10000 + Math.floor(Math.random() * 50000)),
      remark: '',
      listen: '',
      totalGB: '',
      expiry: '',
      sniffing: true,
      nodeId: null,
      settings: { decryption: 'none' },
      stream: { network: 'tcp', security: 'none' },
    };
  }
  const r = mode.row;
  const { clients: _clients, ...settings } = (r.settings ?? {}) as Obj;
  const stream = structuredClone(r.streamSettings ?? {});
  if (mode.kind === 'clone' && stream.realitySettings) stream.realitySettings.shortIds = [randomHex(8)];
  return {
    protocol: r.protocol,
    port: mode.kind === 'clone' ? String(10000 + Math.floor(Math.random() * 50000)) : String(r.port),
    remark: mode.kind === 'clone' ? t('copyName', { name: r.remark || r.tag }) : r.remark,
    listen: r.listen ?? '',
    totalGB: r.total ? String(Math.round((r.total / 1024 ** 3) * 100) / 100) : '',
    expiry: r.expiryTime > 0 ? new Date(r.expiryTime).toISOString().slice(0, 10) : '',
    sniffing: !!(r as Obj).sniffing?.enabled,
    nodeId: r.nodeId ?? null,
    settings: structuredClone(settings),
    stream,
  };
}

/** Settings a protocol starts with when the protocol is switched in the form. */
function defaultSettings(p: string): Obj {
  switch (p) {
    case 'vless':
      return { decryption: 'none' };
    case 'shadowsocks':
      return { method: SS_METHODS[1], password: ssKey(SS_METHODS[1]!), network: 'tcp,udp' };
    case 'hysteria2':
    case 'hysteria':
      return {};
    case 'socks':
    case 'mixed':
      return { auth: 'noauth', accounts: [], udp: true, ip: '127.0.0.1' };
    case 'http':
      return { accounts: [] };
    case 'dokodemo':
      return { address: '127.0.0.1', port: 80, network: 'tcp,udp', followRedirect: false };
    case 'wireguard':
      return { secretKey: '', mtu: 1420, peers: [] };
    default:
      return {};
  }
}

/** The field a panel message names ("port: …", "streamSettings.realitySettings…: …"), for showing it there. */
export const fieldOf = (msg: string) => /^([A-Za-z][\w.[\]]*):/.exec(msg)?.[1] ?? '';

export function InboundForm(props: {
  mode: FormMode | null;
  /** The nodes an inbound may be bound to (from the list page). */
  nodes: NodeBrief[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const mode = props.mode;
  const [d, setD] = useState<Draft | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [encChoices, setEncChoices] = useState<VlessEncAuth[]>([]);
  const [fallbacks, setFallbacks] = useState<FallbackRule[]>([]);
  const [children, setChildren] = useState<{ id: number; remark: string; port: number }[]>([]);

  useEffect(() => {
    if (!mode) return;
    const draft = draftOf(mode);
    setD(draft);
    setError('');
    setEncChoices([]);
    setFallbacks([]);
    api.inboundOptions().then(
      (o) => setChildren(o.filter((x) => mode.kind === 'add' || x.id !== mode.row.id)),
      () => undefined,
    );
    if (mode.kind !== 'add') {
      inboundsApi.fallbacks(mode.row.id).then(
        (rules) =>
          setFallbacks(rules.map(({ childId, name, alpn, path, xver }) => ({ childId, name, alpn, path, xver }))),
        () => undefined,
      );
    }
  }, [mode]);

  if (!mode || !d) return <Dialog title={t('addInbound')} open={false} onClose={props.onClose} children={null} />;

  const title =
    mode.kind === 'add'
      ? t('addInbound')
      : t(mode.kind === 'edit' ? 'editOf' : 'cloneOf', { name: mode.row.remark || mode.row.tag });
  const set = (patch: Partial<Draft>) => setD({ ...d, ...patch });
  const setS = (patch: Obj) => setD({ ...d, settings: { ...d.settings, ...patch } });
  const setStream = (patch: Obj) => setD({ ...d, stream: { ...d.stream, ...patch } });
  const sub = (key: string) => (d.stream[key] ?? {}) as Obj;
  const setSub = (key: string, patch: Obj) => setStream({ [key]: { ...sub(key), ...patch } });
  const network = (d.stream.network as string) || 'tcp';
  const security = (d.stream.security as string) || 'none';
  const p = d.protocol;
  const errField = fieldOf(error);
  const errorAt = (...fields: string[]) =>
    fields.some((f) => errField === f || errField.startsWith(`${f}.`)) ? error : '';

  const keys = async (what: () => Promise<void>) => {
    try {
      await what();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const realityKeys = () =>
    keys(async () => {
      const k = await inboundsApi.x25519();
      const r = sub('realitySettings');
      setSub('realitySettings', {
        privateKey: k.privateKey,
        settings: { ...(r.settings ?? {}), publicKey: k.publicKey },
      });
    });
  const mldsa = () =>
    keys(async () => {
      const k = await inboundsApi.mldsa65();
      const r = sub('realitySettings');
      setSub('realitySettings', {
        mldsa65Seed: k.seed,
        settings: { ...(r.settings ?? {}), mldsa65Verify: k.publicKey },
      });
    });
  const vlessEnc = () =>
    keys(async () => {
      const { auths } = await inboundsApi.vlessEnc();
      setEncChoices(auths);
      const pq = auths.find((a) => /ML-KEM-768/.test(a.label)) ?? auths[0]!;
      setS({ decryption: pq.decryption, encryption: pq.encryption });
    });
  const ech = () =>
    keys(async () => {
      const tls = sub('tlsSettings');
      const k = await inboundsApi.ech(tls.serverName || 'example.com');
      setSub('tlsSettings', {
        echServerKeys: k.echKeySet,
        settings: { ...(tls.settings ?? {}), echConfigList: k.echConfigList },
      });
    });
  const wgKey = () =>
    keys(async () => {
      const k = await inboundsApi.x25519();
      setS({ secretKey: k.privateKey, pubKey: k.publicKey });
    });

  const changeProtocol = (next: string) => {
    const stream = streamed(next) ? { network: 'tcp', security: 'none' } : hysteriaLike(next) ? d.stream : {};
    setD({ ...d, protocol: next, settings: defaultSettings(next), stream });
  };
  const changeSecurity = (next: string) => {
    const stream: Obj = { ...d.stream, security: next };
    if (next === 'reality' && !stream.realitySettings) {
      stream.realitySettings = {
        show: false,
        target: 'www.example.com:443',
        xver: 0,
        serverNames: ['www.example.com'],
        privateKey: '',
        shortIds: [randomHex(8)],
        settings: { publicKey: '', fingerprint: 'chrome', spiderX: '/' },
      };
    }
    if (next === 'tls' && !stream.tlsSettings) {
      stream.tlsSettings = {
        serverName: '',
        alpn: ['h2', 'http/1.1'],
        certificates: [{ certificateFile: '', keyFile: '' }],
      };
    }
    setD({ ...d, stream });
    if (next === 'reality' && !stream.realitySettings.privateKey) {
      void keys(async () => {
        const k = await inboundsApi.x25519();
        setD(
          (cur) =>
            cur && {
              ...cur,
              stream: {
                ...cur.stream,
                realitySettings: {
                  ...cur.stream.realitySettings,
                  privateKey: k.privateKey,
                  settings: { ...(cur.stream.realitySettings?.settings ?? {}), publicKey: k.publicKey },
                },
              },
            },
        );
      });
    }
  };

  const body = () => {
    const stream = { ...d.stream };
    if (!streamed(p) && !hysteriaLike(p)) for (const k of Object.keys(stream)) delete stream[k];
    return {
      protocol: p,
      port: Number(d.port),
      remark: d.remark.trim(),
      listen: d.listen.trim(),
      enable: mode.kind === 'edit' ? mode.row.enable : true,
      total: d.totalGB ? Math.round(Number(d.totalGB) * 1024 ** 3) : 0,
      expiryTime: d.expiry ? new Date(`${d.expiry}T23:59:59`).getTime() : 0,
      settings: d.settings,
      streamSettings: stream,
      sniffing: {
        ...(((mode.kind !== 'add' && (mode.row as Obj).sniffing) as Obj) || {}),
        enabled: d.sniffing,
        destOverride: ['http', 'tls', 'quic'],
      },
      nodeId: nodeCapable(p) ? d.nodeId : null,
    };
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const saved = mode.kind === 'edit' ? await inboundsApi.update(mode.row.id, body()) : await api.addInbound(body());
      if (fallbackCapable(p, network) && (fallbacks.length || mode.kind === 'edit')) {
        await inboundsApi.setFallbacks(
          saved.id,
          fallbacks.filter((f) => f.childId > 0),
        );
      }
      announce(t(mode.kind === 'edit' ? 'saved' : 'added', { name: d.remark }));
      props.onSaved();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (id: string, ...fields: string[]) => {
    const msg = errorAt(...fields);
    return msg ? (
      // Outside the field's name (aria-hidden), read as its description through aria-describedby.
      <span class="field-error" id={id} aria-hidden="true">
        {msg}
      </span>
    ) : null;
  };
  const invalid = (id: string, ...fields: string[]) =>
    errorAt(...fields) ? { 'aria-invalid': true, 'aria-describedby': id } : {};

  const tls = sub('tlsSettings');
  const reality = sub('realitySettings');
  const cert = ((tls.certificates ?? [])[0] ?? {}) as Obj;

  return (
    <Dialog title={title} open={!!mode} onClose={props.onClose} wide>
      <form class="stack" onSubmit={submit} noValidate>
        <div class="row">
          <label class="grow">
            {t('protocol')}
            <select name="protocol" value={p} onChange={(e) => changeProtocol((e.target as HTMLSelectElement).value)}>
              {PROTOCOLS.map((x) => (
                <option key={x} value={x}>
                  {x}
                </option>
              ))}
            </select>
          </label>
          <label class="grow">
            {t('port')}
            <input
              name="port"
              type="number"
              min={1}
              max={65535}
              required
              value={d.port}
              onInput={(e) => set({ port: (e.target as HTMLInputElement).value })}
              {...invalid('err-port', 'port')}
            />
            {fieldError('err-port', 'port')}
          </label>
          {nodeCapable(p) && (
            <label class="grow">
              {t('node')}
              <select
                name="node"
                value={d.nodeId === null ? '' : String(d.nodeId)}
                onChange={(e) => {
                  const v = (e.target as HTMLSelectElement).value;
                  set({ nodeId: v ? Number(v) : null });
                }}
                {...invalid('err-node', 'nodeId')}
              >
                <option value="">{t('local')}</option>
                {props.nodes.map((n) => (
                  <option key={n.id} value={String(n.id)}>
                    {n.name}
                  </option>
                ))}
                {d.nodeId !== null && !props.nodes.some((n) => n.id === d.nodeId) && (
                  <option value={String(d.nodeId)}>{t('nodeN', { id: d.nodeId })}</option>
                )}
              </select>
              {fieldError('err-node', 'nodeId')}
            </label>
          )}
        </div>
        <div class="row">
          <label class="grow">
            {t('remark')}
            <input
              name="remark"
              type="text"
              dir="auto"
              value={d.remark}
              onInput={(e) => set({ remark: (e.target as HTMLInputElement).value })}
              {...invalid('err-remark', 'remark')}
            />
            {fieldError('err-remark', 'remark')}
          </label>
          <label class="grow">
            {t('listen')}
            <input
              type="text"
              dir="auto"
              placeholder={t('allAddresses')}
              value={d.listen}
              onInput={(e) => set({ listen: (e.target as HTMLInputElement).value })}
              {...invalid('err-listen', 'listen')}
            />
            {fieldError('err-listen', 'listen')}
          </label>
        </div>
        <div class="row">
          <label class="grow">
            {t('trafficLimit')}
            <input
              type="number"
              min={0}
              step="any"
              value={d.totalGB}
              onInput={(e) => set({ totalGB: (e.target as HTMLInputElement).value })}
            />
          </label>
          <label class="grow">
            {t('expiryDate')}
            <input
              type="date"
              value={d.expiry}
              onInput={(e) => set({ expiry: (e.target as HTMLInputElement).value })}
            />
          </label>
        </div>

        {p === 'vless' && (
          <fieldset>
            <legend>{t('vlessEncryption')}</legend>
            <label>
              {t('decryption')}
              <input
                type="text"
                dir="auto"
                value={d.settings.decryption ?? 'none'}
                onInput={(e) => setS({ decryption: (e.target as HTMLInputElement).value || 'none' })}
                {...invalid('err-dec', 'settings.decryption')}
              />
              {fieldError('err-dec', 'settings.decryption')}
            </label>
            {d.settings.encryption && (
              <label>
                {t('encryption')}
                <input type="text" dir="auto" readOnly value={d.settings.encryption} />
              </label>
            )}
            <div class="row">
              <button type="button" onClick={vlessEnc}>
                {t('genVlessEnc')}
              </button>
              {encChoices.length > 0 && (
                <label class="inline">
                  {t('authentication')}
                  <select
                    onChange={(e) => {
                      const a = encChoices[Number((e.target as HTMLSelectElement).value)]!;
                      setS({ decryption: a.decryption, encryption: a.encryption });
                    }}
                    value={String(encChoices.findIndex((a) => a.decryption === d.settings.decryption))}
                  >
                    {encChoices.map((a, i) => (
                      <option key={a.id} value={String(i)}>
                        {a.label}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              <button type="button" onClick={() => setS({ decryption: 'none', encryption: undefined })}>
                {t('noEncryption')}
              </button>
            </div>
          </fieldset>
        )}

        {p === 'shadowsocks' && (
          <div class="row">
            <label class="grow">
              {t('method')}
              <select
                value={d.settings.method ?? SS_METHODS[1]}
                onChange={(e) => {
                  const method = (e.target as HTMLSelectElement).value;
                  setS({ method, password: ssKey(method) });
                }}
              >
                {SS_METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
            <label class="grow">
              {t('serverKey')}
              <input
                type="text"
                dir="auto"
                value={d.settings.password ?? ''}
                onInput={(e) => setS({ password: (e.target as HTMLInputElement).value })}
                {...invalid('err-sspw', 'settings.password', 'settings')}
              />
              {fieldError('err-sspw', 'settings.password', 'settings')}
            </label>
            <div class="row" style={{ alignSelf: 'end' }}>
              <button type="button" onClick={() => setS({ password: ssKey(d.settings.method ?? SS_METHODS[1]) })}>
                {t('genKey')}
              </button>
            </div>
          </div>
        )}

        {(p === 'socks' || p === 'mixed' || p === 'http') && (
          <fieldset>
            <legend>{t('authentication')}</legend>
            {p !== 'http' && (
              <label>
                {t('method')}
                <select
                  value={d.settings.auth ?? 'noauth'}
                  onChange={(e) => setS({ auth: (e.target as HTMLSelectElement).value })}
                >
                  <option value="noauth">{t('authNone')}</option>
                  <option value="password">{t('authPassword')}</option>
                </select>
              </label>
            )}
            {(p === 'http' || d.settings.auth === 'password') && (
              <div class="row">
                <label class="grow">
                  {t('user')}
                  <input
                    type="text"
                    dir="auto"
                    value={d.settings.accounts?.[0]?.user ?? ''}
                    onInput={(e) =>
                      setS({
                        accounts: [{ ...(d.settings.accounts?.[0] ?? {}), user: (e.target as HTMLInputElement).value }],
                      })
                    }
                  />
                </label>
                <label class="grow">
                  {t('password')}
                  <input
                    type="text"
                    dir="auto"
                    value={d.settings.accounts?.[0]?.pass ?? ''}
                    onInput={(e) =>
                      setS({
                        accounts: [{ ...(d.settings.accounts?.[0] ?? {}), pass: (e.target as HTMLInputElement).value }],
                      })
                    }
                  />
                </label>
              </div>
            )}
            {p !== 'http' && (
              <label class="inline">
                <input
                  type="checkbox"
                  checked={!!d.settings.udp}
                  onChange={(e) => setS({ udp: (e.target as HTMLInputElement).checked })}
                />
                UDP
              </label>
            )}
          </fieldset>
        )}

        {p === 'dokodemo' && (
          <div class="row">
            <label class="grow">
              {t('targetAddress')}
              <input
                type="text"
                dir="auto"
                value={d.settings.address ?? ''}
                onInput={(e) => setS({ address: (e.target as HTMLInputElement).value })}
              />
            </label>
            <label class="grow">
              {t('targetPort')}
              <input
                type="number"
                min={1}
                max={65535}
                value={String(d.settings.port ?? '')}
                onInput={(e) => setS({ port: Number((e.target as HTMLInputElement).value) })}
              />
            </label>
            <label class="grow">
              {t('network')}
              <select
                value={d.settings.network ?? 'tcp,udp'}
                onChange={(e) => setS({ network: (e.target as HTMLSelectElement).value })}
              >
                {['tcp,udp', 'tcp', 'udp'].map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
          </div>
        )}

        {p === 'wireguard' && (
          <fieldset>
            <legend>WireGuard</legend>
            <label>
              {t('privateKey')}
              <input
                type="text"
                dir="auto"
                value={d.settings.secretKey ?? ''}
                onInput={(e) => setS({ secretKey: (e.target as HTMLInputElement).value })}
              />
            </label>
            {d.settings.pubKey && (
              <label>
                {t('publicKey')}
                <input type="text" dir="auto" readOnly value={d.settings.pubKey} />
              </label>
            )}
            <div class="row">
              <button type="button" onClick={wgKey}>
                {t('genWgKey')}
              </button>
              <label class="inline">
                MTU
                <input
                  type="number"
                  min={576}
                  max={9000}
                  value={String(d.settings.mtu ?? 1420)}
                  onInput={(e) => setS({ mtu: Number((e.target as HTMLInputElement).value) })}
                />
              </label>
            </div>
          </fieldset>
        )}

        {streamed(p) && (
          <div class="row">
            <label class="grow">
              {t('transport')}
              <select
                value={network}
                onChange={(e) => {
                  const net = (e.target as HTMLSelectElement).value;
                  setStream({
                    network: net,
                    security: security === 'reality' && !realityCapable(p, net) ? 'none' : security,
                  });
                }}
              >
                {TRANSPORTS.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <label class="grow">
              {t('security')}
              <select value={security} onChange={(e) => changeSecurity((e.target as HTMLSelectElement).value)}>
                <option value="none">{t('securityNone')}</option>
                <option value="tls">tls</option>
                {realityCapable(p, network) && <option value="reality">reality</option>}
              </select>
            </label>
          </div>
        )}

        {streamed(p) && ['ws', 'httpupgrade', 'xhttp'].includes(network) && (
          <div class="row">
            <label class="grow">
              {t('path')}
              <input
                type="text"
                dir="auto"
                value={sub(`${network}Settings`).path ?? '/'}
                onInput={(e) => setSub(`${network}Settings`, { path: (e.target as HTMLInputElement).value })}
                {...invalid('err-path', `streamSettings.${network}Settings`)}
              />
              {fieldError('err-path', `streamSettings.${network}Settings`)}
            </label>
            <label class="grow">
              {t('host')}
              <input
                type="text"
                dir="auto"
                value={sub(`${network}Settings`).host ?? ''}
                onInput={(e) => setSub(`${network}Settings`, { host: (e.target as HTMLInputElement).value })}
              />
            </label>
            {network === 'xhttp' && (
              <label class="grow">
                {t('mode')}
                <select
                  value={sub('xhttpSettings').mode ?? 'auto'}
                  onChange={(e) => setSub('xhttpSettings', { mode: (e.target as HTMLSelectElement).value })}
                >
                  {XHTTP_MODES.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </div>
        )}
        {streamed(p) && network === 'grpc' && (
          <label>
            {t('serviceName')}
            <input
              type="text"
              dir="auto"
              value={sub('grpcSettings').serviceName ?? ''}
              onInput={(e) => setSub('grpcSettings', { serviceName: (e.target as HTMLInputElement).value })}
            />
          </label>
        )}
        {streamed(p) && network === 'kcp' && (
          <div class="row">
            <label class="grow">
              {t('headerType')}
              <select
                value={sub('kcpSettings').header?.type ?? 'none'}
                onChange={(e) => setSub('kcpSettings', { header: { type: (e.target as HTMLSelectElement).value } })}
              >
                {KCP_HEADERS.map((h) => (
                  <option key={h} value={h}>
                    {h}
                  </option>
                ))}
              </select>
            </label>
            <label class="grow">
              {t('seed')}
              <input
                type="text"
                dir="auto"
                value={sub('kcpSettings').seed ?? ''}
                onInput={(e) => setSub('kcpSettings', { seed: (e.target as HTMLInputElement).value })}
              />
            </label>
          </div>
        )}

        {(streamed(p) || hysteriaLike(p)) && security === 'tls' && (
          <fieldset>
            <legend>TLS</legend>
            <div class="row">
              <label class="grow">
                {t('sni')}
                <input
                  name="sni"
                  type="text"
                  dir="auto"
                  value={tls.serverName ?? ''}
                  onInput={(e) => setSub('tlsSettings', { serverName: (e.target as HTMLInputElement).value })}
                />
              </label>
              <label class="grow">
                ALPN
                <input
                  type="text"
                  dir="auto"
                  value={(tls.alpn ?? []).join(', ')}
                  onInput={(e) => setSub('tlsSettings', { alpn: list((e.target as HTMLInputElement).value) })}
                />
              </label>
            </div>
            <div class="row">
              <label class="grow">
                {t('certFile')}
                <input
                  name="cert"
                  type="text"
                  dir="auto"
                  value={cert.certificateFile ?? ''}
                  onInput={(e) =>
                    setSub('tlsSettings', {
                      certificates: [{ ...cert, certificateFile: (e.target as HTMLInputElement).value }],
                    })
                  }
                  {...invalid('err-cert', 'streamSettings.tlsSettings')}
                />
                {fieldError('err-cert', 'streamSettings.tlsSettings')}
              </label>
              <label class="grow">
                {t('keyFile')}
                <input
                  name="key"
                  type="text"
                  dir="auto"
                  value={cert.keyFile ?? ''}
                  onInput={(e) =>
                    setSub('tlsSettings', {
                      certificates: [{ ...cert, keyFile: (e.target as HTMLInputElement).value }],
                    })
                  }
                />
              </label>
            </div>
            <div class="row">
              <label class="grow">
                {t('fingerprint')}
                <select
                  value={tls.settings?.fingerprint ?? 'chrome'}
                  onChange={(e) =>
                    setSub('tlsSettings', {
                      settings: { ...(tls.settings ?? {}), fingerprint: (e.target as HTMLSelectElement).value },
                    })
                  }
                >
                  {FINGERPRINTS.map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </label>
              <div class="row" style={{ alignSelf: 'end' }}>
                <button type="button" onClick={ech}>
                  {t('genEch')}
                </button>
                {tls.echServerKeys && <span class="muted">{t('echSet')}</span>}
              </div>
            </div>
          </fieldset>
        )}

        {streamed(p) && security === 'reality' && (
          <fieldset>
            <legend>Reality</legend>
            <div class="row">
              <label class="grow">
                {t('sni')}
                <input
                  name="sni"
                  type="text"
                  dir="auto"
                  value={(reality.serverNames ?? []).join(', ')}
                  onInput={(e) =>
                    setSub('realitySettings', { serverNames: list((e.target as HTMLInputElement).value) })
                  }
                />
              </label>
              <label class="grow">
                {t('target')}
                <input
                  name="dest"
                  type="text"
                  dir="auto"
                  value={reality.target ?? reality.dest ?? ''}
                  onInput={(e) => setSub('realitySettings', { target: (e.target as HTMLInputElement).value })}
                  {...invalid('err-target', 'streamSettings.realitySettings')}
                />
                {fieldError('err-target', 'streamSettings.realitySettings')}
              </label>
            </div>
            <label>
              {t('shortIds')}
              <input
                type="text"
                dir="auto"
                value={(reality.shortIds ?? []).join(', ')}
                onInput={(e) => setSub('realitySettings', { shortIds: list((e.target as HTMLInputElement).value) })}
              />
            </label>
            <label>
              {t('publicKey')}
              <input dir="auto" readOnly value={reality.settings?.publicKey ?? ''} />
            </label>
            <label>
              {t('privateKey')}
              <input dir="auto" readOnly value={reality.privateKey ?? ''} />
            </label>
            <div class="row">
              <button type="button" onClick={realityKeys}>
                {t('genKeys')}
              </button>
              <button type="button" onClick={mldsa}>
                {t('genMldsa')}
              </button>
              {reality.mldsa65Seed && <span class="muted">{t('mldsaSet')}</span>}
              <label class="inline">
                {t('fingerprint')}
                <select
                  value={reality.settings?.fingerprint ?? 'chrome'}
                  onChange={(e) =>
                    setSub('realitySettings', {
                      settings: { ...(reality.settings ?? {}), fingerprint: (e.target as HTMLSelectElement).value },
                    })
                  }
                >
                  {FINGERPRINTS.map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </label>
            </div>
          </fieldset>
        )}

        {fallbackCapable(p, network) && security !== 'reality' && (
          <fieldset>
            <legend>{t('fallbacks')}</legend>
            {fallbacks.length === 0 && <p class="muted">{t('noFallbacks')}</p>}
            {fallbacks.map((f, i) => (
              <div class="row" key={i}>
                <label class="grow">
                  {t('fallbackTarget', { n: i + 1 })}
                  <select
                    value={String(f.childId)}
                    onChange={(e) => {
                      const next = [...fallbacks];
                      next[i] = { ...f, childId: Number((e.target as HTMLSelectElement).value) };
                      setFallbacks(next);
                    }}
                  >
                    <option value="0">—</option>
                    {children.map((c) => (
                      <option key={c.id} value={String(c.id)}>
                        {c.remark || t('portN', { port: String(c.port) })}
                      </option>
                    ))}
                  </select>
                </label>
                <label class="grow">
                  {t('fallbackPath', { n: i + 1 })}
                  <input
                    type="text"
                    dir="auto"
                    value={f.path ?? ''}
                    onInput={(e) => {
                      const next = [...fallbacks];
                      next[i] = { ...f, path: (e.target as HTMLInputElement).value };
                      setFallbacks(next);
                    }}
                  />
                </label>
                <label class="grow">
                  {t('fallbackAlpn', { n: i + 1 })}
                  <input
                    type="text"
                    dir="auto"
                    value={f.alpn ?? ''}
                    onInput={(e) => {
                      const next = [...fallbacks];
                      next[i] = { ...f, alpn: (e.target as HTMLInputElement).value };
                      setFallbacks(next);
                    }}
                  />
                </label>
                <button
                  type="button"
                  aria-label={t('removeFallback', { n: i + 1 })}
                  onClick={() => setFallbacks(fallbacks.filter((_, j) => j !== i))}
                >
                  {t('remove')}
                </button>
              </div>
            ))}
            <div>
              <button type="button" onClick={() => setFallbacks([...fallbacks, { childId: 0, path: '' }])}>
                {t('addFallback')}
              </button>
            </div>
          </fieldset>
        )}

        <label class="inline">
          <input
            type="checkbox"
            checked={d.sniffing}
            onChange={(e) => set({ sniffing: (e.target as HTMLInputElement).checked })}
          />
          {t('sniffing')}
        </label>
        <div role="alert" class="alert">
          {error}
        </div>
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            {t('cancel')}
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {t('save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
