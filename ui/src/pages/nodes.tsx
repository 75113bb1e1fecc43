// Nodes: every remote panel as a card (status as text and colour, latency, CPU and memory sparklines from the node
// history, versions, last heartbeat, last error, roll-up counts, the inbounds bound to it), with an enable switch,
// Probe, Edit and Delete. Add and Edit share one dialog whose Test probes the form's values without saving. The
// stored API token is write-only: the field starts empty and an empty field keeps the stored token.
// Live: refetches on `invalidate` for nodes, inbounds and clients, and, since a heartbeat that changes no status
// sends no invalidate, at most once per heartbeat period on the pushed `status` message. Nothing polls.
import { useEffect, useRef, useState } from 'preact/hooks';
import { base } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { ConfirmDialog, Dialog } from '../common';
import { duration, num, relative } from '../i18n';
import { navigate } from '../app-nav';
import { useRefetch } from '../refetch';
import { t } from './nodes.i18n';
import {
  nodesApi,
  type BoundInbound,
  type NodeBody,
  type NodeView,
  type ProbeResult,
  type Sample,
  type TestBody,
} from './nodes.api';
import './nodes.css';

/** The node heartbeat period: figures on the cards change at most this often without an invalidate. */
const HEARTBEAT_MS = 30_000;
/** History bucket of the sparklines (seconds; about 6 hours of samples). */
const SPARK_BUCKET = 120;

type Spark = { cpu: Sample[]; mem: Sample[] };
type Dlg = null | { kind: 'add' } | { kind: 'edit'; node: NodeView } | { kind: 'delete'; node: NodeView };

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function Nodes() {
  const [nodes, setNodes] = useState<NodeView[] | null>(null);
  const [sparks, setSparks] = useState<Record<number, Spark>>({});
  const [inbounds, setInbounds] = useState<BoundInbound[]>([]);
  const [dialog, setDialog] = useState<Dlg>(null);
  const [busy, setBusy] = useState<Record<number, boolean>>({});
  const lastLoad = useRef(0);
  /** The lastHeartbeat each node had when its sparklines were read. */
  const sparkBeat = useRef(new Map<number, number>());

  const loadNodes = async () => {
    lastLoad.current = Date.now();
    let list: NodeView[];
    try {
      list = await nodesApi.list();
    } catch (err) {
      announce(errText(err), true);
      return;
    }
    setNodes(list);
    // A node's history only grows when a probe reaches it, which moves its lastHeartbeat: only those are re-read.
    const stale = list.filter((n) => sparkBeat.current.get(n.id) !== n.lastHeartbeat);
    if (stale.length === 0) return;
    const entries = await Promise.all(
      stale.map(async (n): Promise<[number, Spark]> => {
        const [cpu, mem] = await Promise.all([
          nodesApi.history(n.id, 'cpu', SPARK_BUCKET).catch(() => []),
          nodesApi.history(n.id, 'mem', SPARK_BUCKET).catch(() => []),
        ]);
        sparkBeat.current.set(n.id, n.lastHeartbeat);
        return [n.id, { cpu, mem }];
      }),
    );
    setSparks((old) => ({ ...old, ...Object.fromEntries(entries) }));
  };
  const live = useRefetch(loadNodes);
  const liveInbounds = useRefetch(() => nodesApi.inbounds().then(setInbounds, (e) => announce(errText(e), true)));

  useEffect(() => {
    live.run();
    liveInbounds.run();
    const off = onLive((m) => {
      if (m.type === 'invalidate') {
        if (m.resource === 'nodes' || m.resource === 'clients') live.soon();
        if (m.resource === 'inbounds') {
          live.soon();
          liveInbounds.soon();
        }
      } else if (m.type === 'status' && Date.now() - lastLoad.current >= HEARTBEAT_MS) {
        live.soon();
      }
    });
    const offRe = onReconnect(() => {
      live.run();
      liveInbounds.run();
    });
    return () => {
      off();
      offRe();
    };
  }, []);

  const setBusyFor = (id: number, on: boolean) => setBusy((b) => ({ ...b, [id]: on }));

  const probe = async (n: NodeView) => {
    setBusyFor(n.id, true);
    try {
      const r = await nodesApi.probe(n.id);
      announce(probeText(r, n.name), r.status !== 'online');
    } catch (err) {
      announce(errText(err), true);
    } finally {
      setBusyFor(n.id, false);
      live.run();
    }
  };

  const toggle = async (n: NodeView, enable: boolean) => {
    setNodes((xs) => xs && xs.map((x) => (x.id === n.id ? { ...x, enable } : x)));
    try {
      await nodesApi.setEnable(n.id, enable);
      announce(t(enable ? 'enabledMsg' : 'pausedMsg', { name: n.name }));
    } catch (err) {
      announce(errText(err), true);
    }
    live.run();
  };

  const remove = async (n: NodeView) => {
    try {
      await nodesApi.del(n.id);
      announce(t('deletedMsg', { name: n.name }));
      setDialog(null);
    } catch (err) {
      announce(errText(err), true);
    }
    live.run();
  };

  const boundTo = (id: number) => inbounds.filter((ib) => ib.nodeId === id);

  return (
    <>
      <div class="row" style={{ marginBlockEnd: '12px' }}>
        <h1 class="grow" style={{ margin: 0 }}>
          {t('title')}
        </h1>
        <button type="button" class="primary" onClick={() => setDialog({ kind: 'add' })}>
          {t('addNode')}
        </button>
      </div>
      {nodes === null ? (
        <p class="muted">{t('loading')}</p>
      ) : nodes.length === 0 ? (
        <p class="muted">{t('empty')}</p>
      ) : (
        <ul class="node-list">
          {nodes.map((n) => (
            <NodeCard
              key={n.id}
              n={n}
              spark={sparks[n.id]}
              bound={boundTo(n.id)}
              busy={!!busy[n.id]}
              onProbe={() => probe(n)}
              onToggle={(on) => toggle(n, on)}
              onEdit={() => setDialog({ kind: 'edit', node: n })}
              onDelete={() => setDialog({ kind: 'delete', node: n })}
            />
          ))}
        </ul>
      )}
      <NodeForm
        mode={dialog?.kind === 'add' || dialog?.kind === 'edit' ? dialog : null}
        onClose={() => setDialog(null)}
        onSaved={(saved) => {
          setDialog(null);
          live.run();
          // A saved enabled node is probed at once, so its card shows its state without waiting for the heartbeat.
          if (saved.enable) void probe(saved);
        }}
      />
      <ConfirmDialog
        title={t('deleteNode')}
        open={dialog?.kind === 'delete'}
        onClose={() => setDialog(null)}
        action={t('delete')}
        onConfirm={() => dialog?.kind === 'delete' && remove(dialog.node)}
      >
        {dialog?.kind === 'delete' && (
          <>
            <p>{t('deleteConfirm', { name: dialog.node.name })}</p>
            {boundTo(dialog.node.id).length > 0 && (
              <p class="alert">{t('deleteBound', { n: boundTo(dialog.node.id).length })}</p>
            )}
          </>
        )}
      </ConfirmDialog>
    </>
  );
}

/** "Online, 12 ms" or "Offline: connection refused", with the node's name when given. */
function probeText(r: ProbeResult, name?: string): string {
  const body =
    r.status === 'online'
      ? t('probeOnline', { ms: r.latencyMs })
      : t(r.status === 'offline' ? 'probeOffline' : 'probeError', { error: r.error || '—' });
  return name ? `${name}: ${body}` : body;
}

const statusKey: Record<string, 'statusUnknown' | 'statusOnline' | 'statusOffline' | 'statusError'> = {
  unknown: 'statusUnknown',
  online: 'statusOnline',
  offline: 'statusOffline',
  error: 'statusError',
};

function NodeCard(props: {
  n: NodeView;
  spark: Spark | undefined;
  bound: BoundInbound[];
  busy: boolean;
  onProbe: () => void;
  onToggle: (on: boolean) => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const { n } = props;
  const hid = `node-${n.id}`;
  const inboundsHref = `${base}panel/inbounds`;
  const target = `${n.scheme}://${n.address.includes(':') ? `[${n.address}]` : n.address}:${n.port}${n.basePath}`;
  return (
    <li class="card node-card">
      <article aria-labelledby={hid} class="stack">
        <div class="row">
          <h2 id={hid} class="grow node-name">
            {n.name}
          </h2>
          <label class="inline">
            <input
              type="checkbox"
              role="switch"
              class="switch"
              aria-label={t('enableName', { name: n.name })}
              checked={n.enable}
              onChange={(e) => props.onToggle((e.target as HTMLInputElement).checked)}
            />
            <span aria-hidden="true">{n.enable ? t('enabled') : t('paused')}</span>
          </label>
        </div>
        <p class="node-target">
          <span class={`node-status st-${n.status}`}>
            <span class="dot" aria-hidden="true" />
            {t(statusKey[n.status] ?? 'statusUnknown')}
          </span>
          <span class="muted" dir="ltr">
            {target}
          </span>
        </p>
        {n.remark && <p class="muted node-remark">{n.remark}</p>}
        <dl class="facts">
          <dt>{t('latency')}</dt>
          <dd>{n.status === 'online' ? t('ms', { ms: n.latencyMs }) : '—'}</dd>
          <dt>{t('lastHeartbeat')}</dt>
          <dd>{n.lastHeartbeat ? relative(n.lastHeartbeat * 1000) : t('never')}</dd>
          <dt>{t('versions')}</dt>
          <dd>
            {n.panelVersion || n.coreVersion
              ? t('versionsValue', { panel: n.panelVersion || '—', core: n.coreVersion || '—' })
              : '—'}
          </dd>
          {n.status === 'online' && n.uptimeSecs > 0 && (
            <>
              <dt>{t('uptime')}</dt>
              <dd>{duration(n.uptimeSecs)}</dd>
            </>
          )}
          <dt>{t('counts')}</dt>
          <dd>
            {t('countsValue', {
              inbounds: n.inboundCount,
              clients: n.clientCount,
              online: n.onlineCount,
              depleted: n.depletedCount,
            })}
          </dd>
        </dl>
        <div class="node-sparks">
          <SparkCell label={t('cpu')} name={n.name} samples={props.spark?.cpu} now={n.cpuPct} live={n.status} />
          <SparkCell label={t('memory')} name={n.name} samples={props.spark?.mem} now={n.memPct} live={n.status} />
        </div>
        {n.lastError && (
          <p class="node-error">
            <strong>{t('lastError')}</strong> <span dir="auto">{n.lastError}</span>
          </p>
        )}
        <div>
          <h3 class="node-sub" id={`${hid}-ib`}>
            {t('boundInbounds')}
          </h3>
          {props.bound.length === 0 ? (
            <p class="muted node-none">{t('noBound')}</p>
          ) : (
            <ul class="node-inbounds" aria-labelledby={`${hid}-ib`}>
              {props.bound.map((ib) => (
                <li key={ib.id}>
                  <a
                    href={inboundsHref}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(inboundsHref);
                    }}
                  >
                    {ib.remark || t('inboundFallback', { protocol: ib.protocol, port: ib.port })}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div class="row node-actions">
          <button
            type="button"
            aria-label={t('probeName', { name: n.name })}
            disabled={props.busy}
            aria-busy={props.busy}
            onClick={props.onProbe}
          >
            {props.busy ? t('probing') : t('probe')}
          </button>
          <button type="button" aria-label={t('editName', { name: n.name })} onClick={props.onEdit}>
            {t('edit')}
          </button>
          <button type="button" class="danger" aria-label={t('deleteName', { name: n.name })} onClick={props.onDelete}>
            {t('delete')}
          </button>
        </div>
      </article>
    </li>
  );
}

function SparkCell(props: { label: string; name: string; samples?: Sample[]; now: number; live: string }) {
  const latest = props.live === 'online' ? `${num(props.now, 1)}%` : '—';
  return (
    <div class="node-spark">
      <span class="muted">{props.label}</span>
      <Sparkline
        samples={props.samples ?? []}
        label={t('sparkLabel', { metric: props.label, name: props.name, n: (props.samples ?? []).length })}
      />
      <span>{latest}</span>
    </div>
  );
}

/** A small inline SVG line of percent samples (0–100), oldest first; time runs left to right in every language. */
export function Sparkline({ samples, label }: { samples: Sample[]; label: string }) {
  const W = 120;
  const H = 28;
  const y = (v: number) => (H - 2 - (Math.max(0, Math.min(100, v)) / 100) * (H - 4)).toFixed(1);
  const n = samples.length;
  const x = (i: number) => (n === 1 ? W - 2 : (i / (n - 1)) * (W - 2) + 1).toFixed(1);
  const points = samples.map((s, i) => `${x(i)},${y(s.v)}`).join(' ');
  return (
    <svg class="spark" role="img" aria-label={label} viewBox={`0 0 ${W} ${H}`} width={W} height={H} dir="ltr">
      <line x1="0" y1={H - 1} x2={W} y2={H - 1} class="spark-base" />
      {n > 1 && <polyline points={points} class="spark-line" />}
      {n === 1 && <circle cx={x(0)} cy={y(samples[0]!.v)} r="2" class="spark-dot" />}
    </svg>
  );
}

interface FormState {
  name: string;
  remark: string;
  scheme: 'http' | 'https';
  address: string;
  port: string;
  basePath: string;
  apiToken: string;
  clearApiToken: boolean;
  enable: boolean;
  allowPrivateAddress: boolean;
  tlsMode: 'verify' | 'pin' | 'skip';
  tlsPin: string;
}

const EMPTY: FormState = {
  name: '',
  remark: '',
  scheme: 'https',
  address: '',
  port: '',
  basePath: '/',
  apiToken: '',
  clearApiToken: false,
  enable: true,
  allowPrivateAddress: false,
  tlsMode: 'verify',
  tlsPin: '',
};

type WithTls = NodeView & { tlsMode?: FormState['tlsMode']; tlsPin?: string };

function fromNode(n: WithTls): FormState {
  return {
    name: n.name,
    remark: n.remark,
    scheme: n.scheme,
    address: n.address,
    port: String(n.port),
    basePath: n.basePath,
    apiToken: '',
    clearApiToken: false,
    enable: n.enable,
    allowPrivateAddress: n.allowPrivateAddress,
    tlsMode: n.tlsMode ?? 'verify',
    tlsPin: n.tlsPin ? `sha256/${n.tlsPin}` : '',
  };
}

const FIELDS = ['name', 'remark', 'address', 'port', 'basePath', 'apiToken', 'tlsPin'] as const;
type Field = (typeof FIELDS)[number];

/** The panel's "field: message" error split into the field it names (when the form has it) and the message. */
function splitError(msg: string): { field: Field | null; text: string } {
  const m = /^(\w+): (.*)$/s.exec(msg);
  if (m && (FIELDS as readonly string[]).includes(m[1]!)) return { field: m[1] as Field, text: m[2]! };
  return { field: null, text: msg };
}

type TestState = null | { busy: true } | { busy: false; ok: boolean; text: string; pin: string };

function NodeForm(props: {
  mode: null | { kind: 'add' } | { kind: 'edit'; node: NodeView };
  onClose: () => void;
  onSaved: (saved: NodeView) => void;
}) {
  const { mode } = props;
  const [f, setF] = useState<FormState>(EMPTY);
  const [error, setError] = useState('');
  const [fieldErr, setFieldErr] = useState<{ field: Field; text: string } | null>(null);
  const [test, setTest] = useState<TestState>(null);
  const [saving, setSaving] = useState(false);
  const [tlsTouched, setTlsTouched] = useState(false);

  useEffect(() => {
    setF(mode?.kind === 'edit' ? fromNode(mode.node) : EMPTY);
    setError('');
    setFieldErr(null);
    setTest(null);
    setTlsTouched(false);
  }, [mode]);

  const set = (patch: Partial<FormState>) => {
    if ('tlsMode' in patch || 'tlsPin' in patch) setTlsTouched(true);
    setF((x) => ({ ...x, ...patch }));
  };
  const editing = mode?.kind === 'edit' ? mode.node : null;

  const connection = (): TestBody => ({
    ...toTestBody(f),
    ...(f.apiToken.trim() ? { apiToken: f.apiToken.trim() } : {}),
  });

  const fail = (err: unknown) => {
    const msg = errText(err);
    const s = splitError(msg);
    setFieldErr(s.field ? { field: s.field, text: s.text } : null);
    setError(msg);
  };

  const runTest = async () => {
    setError('');
    setFieldErr(null);
    setTest({ busy: true });
    try {
      const body = connection();
      // The stored token is never sent back to the browser: with the field empty and the connection unchanged,
      // the saved node is probed instead (that probe also refreshes its card).
      const unchanged =
        editing !== null &&
        !body.apiToken &&
        !f.clearApiToken &&
        JSON.stringify(toTestBody(f)) === JSON.stringify(toTestBody(fromNode(editing)));
      const r = unchanged && editing ? await nodesApi.probe(editing.id) : await nodesApi.test(body);
      const note = editing && !body.apiToken && !unchanged ? ` ${t('testNoToken')}` : '';
      setTest({ busy: false, ok: r.status === 'online', text: probeText(r) + note, pin: pinOf(r) });
    } catch (err) {
      setTest(null);
      fail(err);
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    setFieldErr(null);
    setSaving(true);
    const conn = connection();
    // The node view carries tlsMode/tlsPin (the OpenAPI Node schema does not list them): if a panel ever leaves them
    // out, an untouched form must not reset a pinned node to "verify", so they are then omitted (kept as stored).
    const keepTls = editing && !('tlsMode' in editing) && !tlsTouched;
    if (keepTls) {
      delete conn.tlsMode;
      delete conn.tlsPin;
    }
    const body: NodeBody = {
      ...conn,
      name: f.name.trim(),
      remark: f.remark,
      enable: f.enable,
      ...(editing && f.clearApiToken ? { clearApiToken: true } : {}),
    };
    try {
      const saved = editing ? await nodesApi.update(editing.id, body) : await nodesApi.add(body);
      announce(t(editing ? 'savedMsg' : 'addedMsg', { name: saved.name }));
      props.onSaved(saved);
    } catch (err) {
      fail(err);
    } finally {
      setSaving(false);
    }
  };

  const invalid = (field: Field) =>
    fieldErr?.field === field ? { 'aria-invalid': true, 'aria-describedby': `nf-err-${field}` } : {};
  const fieldError = (field: Field) =>
    fieldErr?.field === field ? (
      <span class="field-error" id={`nf-err-${field}`}>
        {fieldErr.text}
      </span>
    ) : null;
  const input = (key: keyof FormState) => (e: Event) => set({ [key]: (e.target as HTMLInputElement).value });
  const check = (key: keyof FormState) => (e: Event) => set({ [key]: (e.target as HTMLInputElement).checked });

  const tokenNote = editing ? (editing.hasApiToken ? t('tokenSet') : t('tokenNotSet')) : t('tokenHelp');
  const tokenDescribedBy = ['nf-token-note', fieldErr?.field === 'apiToken' ? 'nf-err-apiToken' : '']
    .filter(Boolean)
    .join(' ');

  return (
    <Dialog title={editing ? t('editNode') : t('addNode')} open={!!mode} onClose={props.onClose} wide>
      <form class="stack" onSubmit={submit} noValidate>
        <div class="node-grid">
          <div class="node-field">
            <label>
              {t('name')}
              <input type="text" required value={f.name} onInput={input('name')} {...invalid('name')} />
            </label>
            {fieldError('name')}
          </div>
          <div class="node-field">
            <label>
              {t('remark')}
              <input type="text" value={f.remark} onInput={input('remark')} {...invalid('remark')} />
            </label>
            {fieldError('remark')}
          </div>
          <div class="node-field">
            <label>
              {t('scheme')}
              <select
                value={f.scheme}
                onChange={(e) => set({ scheme: (e.target as HTMLSelectElement).value as FormState['scheme'] })}
              >
                <option value="https">https</option>
                <option value="http">http</option>
              </select>
            </label>
          </div>
          <div class="node-field">
            <label>
              {t('address')}
              <input
                type="text"
                required
                dir="ltr"
                autoComplete="off"
                spellcheck={false}
                value={f.address}
                onInput={input('address')}
                {...invalid('address')}
              />
            </label>
            {fieldError('address')}
          </div>
          <div class="node-field">
            <label>
              {t('port')}
              <input
                type="number"
                required
                min={1}
                max={65535}
                value={f.port}
                onInput={input('port')}
                {...invalid('port')}
              />
            </label>
            {fieldError('port')}
          </div>
          <div class="node-field">
            <label>
              {t('basePath')}
              <input
                type="text"
                dir="ltr"
                spellcheck={false}
                value={f.basePath}
                onInput={input('basePath')}
                {...invalid('basePath')}
              />
            </label>
            {fieldError('basePath')}
          </div>
        </div>
        <div class="node-field">
          <label>
            {t('apiToken')}
            <input
              type="password"
              autoComplete="new-password"
              dir="ltr"
              value={f.apiToken}
              onInput={input('apiToken')}
              disabled={f.clearApiToken}
              aria-invalid={fieldErr?.field === 'apiToken' ? true : undefined}
              aria-describedby={tokenDescribedBy}
            />
          </label>
          <span class="muted node-note" id="nf-token-note">
            {tokenNote}
          </span>
          {fieldError('apiToken')}
        </div>
        {editing?.hasApiToken && (
          <label class="inline">
            <input type="checkbox" checked={f.clearApiToken} onChange={check('clearApiToken')} />
            {t('clearToken')}
          </label>
        )}
        {f.scheme === 'https' && (
          <div class="node-grid">
            <div class="node-field">
              <label>
                {t('tlsMode')}
                <select
                  value={f.tlsMode}
                  onChange={(e) => set({ tlsMode: (e.target as HTMLSelectElement).value as FormState['tlsMode'] })}
                >
                  <option value="verify">{t('tlsVerify')}</option>
                  <option value="pin">{t('tlsPinMode')}</option>
                  <option value="skip">{t('tlsSkip')}</option>
                </select>
              </label>
            </div>
            {f.tlsMode === 'pin' && (
              <div class="node-field">
                <label>
                  {t('tlsPin')}
                  <input
                    type="text"
                    dir="ltr"
                    spellcheck={false}
                    value={f.tlsPin}
                    onInput={input('tlsPin')}
                    {...invalid('tlsPin')}
                  />
                </label>
                {fieldError('tlsPin')}
              </div>
            )}
          </div>
        )}
        {f.scheme === 'https' && f.tlsMode === 'skip' && <p class="alert">{t('tlsSkipWarn')}</p>}
        <label class="inline">
          <input type="checkbox" checked={f.allowPrivateAddress} onChange={check('allowPrivateAddress')} />
          {t('allowPrivate')}
        </label>
        <label class="inline">
          <input type="checkbox" checked={f.enable} onChange={check('enable')} />
          {t('enableSync')}
        </label>
        <div role="status" class={`status node-test ${test && !test.busy ? (test.ok ? 'ok' : 'bad') : ''}`}>
          {test?.busy ? t('testing') : (test?.text ?? '')}
        </div>
        {test && !test.busy && !test.ok && test.pin && f.scheme === 'https' && (
          <button type="button" onClick={() => set({ tlsMode: 'pin', tlsPin: `sha256/${test.pin}` })}>
            {t('usePin')}
          </button>
        )}
        <div role="alert" class="alert">
          {error}
        </div>
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            {t('cancel')}
          </button>
          <button type="button" onClick={runTest} disabled={test?.busy === true}>
            {t('test')}
          </button>
          <button type="submit" class="primary" disabled={saving}>
            {t('save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function toTestBody(s: FormState): TestBody {
  return {
    scheme: s.scheme,
    address: s.address.trim(),
    port: Number(s.port),
    basePath: s.basePath.trim() || '/',
    allowPrivateAddress: s.allowPrivateAddress,
    tlsMode: s.tlsMode,
    tlsPin: s.tlsMode === 'pin' ? s.tlsPin.trim() : '',
  };
}

/** The key pin a probe saw (https), if the panel sent it. */
const pinOf = (r: ProbeResult) => (typeof r.tlsPin === 'string' ? r.tlsPin : '');
