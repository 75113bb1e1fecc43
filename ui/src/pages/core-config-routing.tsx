// The tabs of the core configuration page that edit the in-memory template as objects: routing rules (add, edit,
// move, delete), outbounds (add and edit as JSON, delete, test through testOutbound), balancers and DNS (JSON of
// the section). Nothing here saves: the page's "Save" does, after the core tested the whole config.
import { useState } from 'preact/hooks';
import { announce } from '../announce';
import { Dialog } from '../common';
import { num } from '../i18n';
import { t } from './core-config.i18n';
import { coreApi, type GeoAlias, type OutboundProbe } from './core-config.api';
import {
  balancersOf,
  draftOf,
  emptyDraft,
  jsonProblem,
  moved,
  outboundsOf,
  pretty,
  ruleOf,
  rulesOf,
  withOutbounds,
  withRules,
  type Json,
  type RuleDraft,
} from './core-config-model';
import type { TemplateProps } from './core-config-page';

const PROTOCOLS = ['http', 'tls', 'quic', 'bittorrent'];
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const asText = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v));

/** A rule's conditions in one line: "domain: geosite:cn · port: 443". */
function conditions(r: Json): string {
  const keys = ['domain', 'ip', 'port', 'sourcePort', 'network', 'protocol', 'inboundTag', 'source', 'user', 'attrs'];
  const parts = keys.filter((k) => r[k] !== undefined).map((k) => `${k}: ${asText(r[k])}`);
  return parts.join(' · ') || t('noConditions');
}

export function RoutingTab(props: TemplateProps & { aliases: GeoAlias[]; inboundTags: string[] }) {
  const { tpl, edit, aliases, inboundTags } = props;
  const rules = rulesOf(tpl);
  const [editing, setEditing] = useState<number | null>(null);
  const setRules = (f: (rules: Json[]) => Json[]) => edit((x) => withRules(x, f(rulesOf(x))));
  const outboundTags = outboundsOf(tpl)
    .map((o) => o.tag)
    .filter((x): x is string => typeof x === 'string' && x !== '');
  const balancerTags = balancersOf(tpl)
    .map((b) => b.tag)
    .filter((x): x is string => typeof x === 'string' && x !== '');
  const name = (i: number) => t('ruleN', { n: i + 1 });

  return (
    <div class="stack">
      <p class="muted">{t('routingHelp')}</p>
      {rules.length === 0 ? (
        <p class="muted">{t('noRules')}</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>#</th>
              <th>{t('target')}</th>
              <th>{t('conditions')}</th>
              <th>
                <span class="visually-hidden">{t('actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r, i) => (
              <tr key={i} aria-current={editing === i ? 'true' : undefined}>
                <td data-label="#">{num(i + 1)}</td>
                <td data-label={t('target')}>
                  {r.balancerTag !== undefined && r.outboundTag === undefined
                    ? t('toBalancer', { tag: String(r.balancerTag) })
                    : String(r.outboundTag ?? '')}
                </td>
                <td data-label={t('conditions')}>
                  <span class="cc-cond">{conditions(r)}</span>
                </td>
                <td>
                  <span class="row cc-actions">
                    <button
                      type="button"
                      aria-label={t('moveUpN', { n: i + 1 })}
                      disabled={i === 0}
                      onClick={() => {
                        setRules((xs) => moved(xs, i, -1));
                        announce(t('movedUp', { rule: name(i) }));
                      }}
                    >
                      {t('moveUp')}
                    </button>
                    <button
                      type="button"
                      aria-label={t('moveDownN', { n: i + 1 })}
                      disabled={i === rules.length - 1}
                      onClick={() => {
                        setRules((xs) => moved(xs, i, 1));
                        announce(t('movedDown', { rule: name(i) }));
                      }}
                    >
                      {t('moveDown')}
                    </button>
                    <button type="button" aria-label={t('editN', { n: i + 1 })} onClick={() => setEditing(i)}>
                      {t('edit')}
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={t('deleteN', { n: i + 1 })}
                      onClick={() => {
                        setRules((xs) => xs.filter((_, j) => j !== i));
                        if (editing !== null) setEditing(null);
                        announce(t('ruleDeleted', { rule: name(i) }));
                      }}
                    >
                      {t('delete')}
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <RuleForm
        key={editing ?? 'new'}
        editing={editing}
        initial={editing !== null && rules[editing] ? draftOf(rules[editing]) : emptyDraft()}
        outboundTags={outboundTags}
        balancerTags={balancerTags}
        aliases={aliases}
        inboundTags={inboundTags}
        onCancel={() => setEditing(null)}
        onSubmit={(d) => {
          if (editing === null) {
            setRules((xs) => [...xs, ruleOf(d)]);
            announce(t('ruleAdded', { n: rules.length + 1 }));
          } else {
            const at = editing;
            setRules((xs) => xs.map((r, j) => (j === at ? ruleOf(d, r) : r)));
            announce(t('ruleChanged', { rule: name(at) }));
            setEditing(null);
          }
        }}
      />
    </div>
  );
}

function RuleForm(props: {
  editing: number | null;
  initial: RuleDraft;
  outboundTags: string[];
  balancerTags: string[];
  aliases: GeoAlias[];
  inboundTags: string[];
  onCancel: () => void;
  onSubmit: (d: RuleDraft) => void;
}) {
  const [d, setD] = useState<RuleDraft>(props.initial);
  const [errors, setErrors] = useState<{ tag?: string; conditions?: string }>({});
  const set = <K extends keyof RuleDraft>(k: K, v: RuleDraft[K]) => setD((x) => ({ ...x, [k]: v }));
  const tags = d.target === 'balancerTag' ? props.balancerTags : props.outboundTags;
  const geo = (type: 'geosite' | 'geoip') =>
    props.aliases.filter((a) => a.type === type).map((a) => a.usage.replace('<tag>', ''));
  const submit = (e: Event) => {
    e.preventDefault();
    const errs: typeof errors = {};
    if (!d.tag.trim()) errs.tag = t('tagRequired');
    const any = d.domain || d.ip || d.port || d.network || d.protocol.length || d.inboundTag;
    if (!any) errs.conditions = t('conditionRequired');
    setErrors(errs);
    if (errs.tag || errs.conditions) {
      announce(errs.tag ?? errs.conditions!, true);
      return;
    }
    props.onSubmit(d);
    if (props.editing === null) setD(emptyDraft());
  };
  const title = props.editing === null ? t('addRule') : t('editRuleN', { n: props.editing + 1 });
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="cc-rule-form">
      <h2 id="cc-rule-form">{title}</h2>
      <div class="cc-grid">
        <label>
          {t('sendTo')}
          <select
            value={d.target}
            onChange={(e) => set('target', (e.target as HTMLSelectElement).value as RuleDraft['target'])}
          >
            <option value="outboundTag">{t('outbound')}</option>
            <option value="balancerTag">{t('balancer')}</option>
          </select>
        </label>
        <label>
          {d.target === 'balancerTag' ? t('balancerTag') : t('outboundTag')}
          <input
            type="text"
            list="cc-tags"
            value={d.tag}
            aria-invalid={errors.tag ? 'true' : undefined}
            aria-describedby={errors.tag ? 'cc-tag-error' : undefined}
            onInput={(e) => set('tag', (e.target as HTMLInputElement).value)}
          />
        </label>
        <datalist id="cc-tags">
          {tags.map((x) => (
            <option key={x} value={x} />
          ))}
        </datalist>
        {errors.tag && (
          <span id="cc-tag-error" class="field-error cc-wide">
            {errors.tag}
          </span>
        )}
        <label>
          {t('domain')}
          <input
            type="text"
            list="cc-geosite"
            value={d.domain}
            placeholder="geosite:category-ads-all, example.com"
            aria-describedby="cc-list-hint cc-cond-error"
            onInput={(e) => set('domain', (e.target as HTMLInputElement).value)}
          />
        </label>
        <datalist id="cc-geosite">
          {geo('geosite').map((x) => (
            <option key={x} value={x} />
          ))}
        </datalist>
        <label>
          {t('ip')}
          <input
            type="text"
            list="cc-geoip"
            value={d.ip}
            placeholder="geoip:private, 10.0.0.0/8"
            aria-describedby="cc-list-hint cc-cond-error"
            onInput={(e) => set('ip', (e.target as HTMLInputElement).value)}
          />
        </label>
        <datalist id="cc-geoip">
          {geo('geoip').map((x) => (
            <option key={x} value={x} />
          ))}
        </datalist>
        <label>
          {t('port')}
          <input
            type="text"
            value={d.port}
            placeholder="53,443,1000-2000"
            inputMode="numeric"
            onInput={(e) => set('port', (e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          {t('network')}
          <select value={d.network} onChange={(e) => set('network', (e.target as HTMLSelectElement).value)}>
            <option value="">{t('any')}</option>
            <option value="tcp">tcp</option>
            <option value="udp">udp</option>
            <option value="tcp,udp">tcp, udp</option>
          </select>
        </label>
        <label>
          {t('inboundTag')}
          <input
            type="text"
            list="cc-inbounds"
            value={d.inboundTag}
            aria-describedby="cc-list-hint"
            onInput={(e) => set('inboundTag', (e.target as HTMLInputElement).value)}
          />
        </label>
        <datalist id="cc-inbounds">
          {props.inboundTags.map((x) => (
            <option key={x} value={x} />
          ))}
        </datalist>
        <fieldset>
          <legend>{t('protocol')}</legend>
          <div class="row">
            {PROTOCOLS.map((p) => (
              <label class="inline" key={p}>
                <input
                  type="checkbox"
                  checked={d.protocol.includes(p)}
                  onChange={(e) =>
                    set(
                      'protocol',
                      (e.target as HTMLInputElement).checked ? [...d.protocol, p] : d.protocol.filter((x) => x !== p),
                    )
                  }
                />
                {p}
              </label>
            ))}
          </div>
        </fieldset>
      </div>
      <p id="cc-list-hint" class="muted cc-hint">
        {t('listHint')}
      </p>
      {errors.conditions && (
        <p id="cc-cond-error" class="field-error">
          {errors.conditions}
        </p>
      )}
      <div class="actions row">
        {props.editing !== null && (
          <button type="button" onClick={props.onCancel}>
            {t('cancel')}
          </button>
        )}
        <button type="submit" class="primary">
          {props.editing === null ? t('addRule') : t('applyRule')}
        </button>
      </div>
    </form>
  );
}

type ProbeState = { busy: true } | ({ busy: false } & OutboundProbe);

export function OutboundsTab(
  props: TemplateProps & { testUrl: string; setTestUrl: (s: string) => void; savedUrl: string },
) {
  const { tpl, edit } = props;
  const outbounds = outboundsOf(tpl);
  const [dialog, setDialog] = useState<null | { index: number | null; text: string }>(null);
  const [error, setError] = useState('');
  const [probes, setProbes] = useState<Record<string, ProbeState>>({});

  const test = async (o: Json) => {
    const tag = String(o.tag ?? '');
    setProbes((p) => ({ ...p, [tag]: { busy: true } }));
    try {
      const r = await coreApi.testOutbound(o, outbounds);
      setProbes((p) => ({ ...p, [tag]: { busy: false, ...r } }));
      announce(r.success ? t('testOk', { tag, ms: r.delay }) : t('testFailed', { tag, error: r.error }), !r.success);
    } catch (e) {
      setProbes((p) => ({ ...p, [tag]: { busy: false, success: false, delay: 0, error: message(e) } }));
      announce(t('testFailed', { tag, error: message(e) }), true);
    }
  };
  const open = (index: number | null) => {
    setError('');
    setDialog({
      index,
      text: index === null ? pretty({ tag: '', protocol: 'freedom', settings: {} }) : pretty(outbounds[index]),
    });
  };
  const apply = () => {
    if (!dialog) return;
    const p = jsonProblem(dialog.text);
    if (p) return setError(t('jsonError', { line: p.line, column: p.column, message: p.message }));
    const o = JSON.parse(dialog.text);
    if (!o || typeof o !== 'object' || Array.isArray(o)) return setError(t('outboundObject'));
    if (typeof o.protocol !== 'string' || !o.protocol) return setError(t('protocolRequired'));
    const tag = typeof o.tag === 'string' ? o.tag : '';
    if (tag && outbounds.some((x, i) => x.tag === tag && i !== dialog.index)) return setError(t('tagTaken', { tag }));
    const at = dialog.index;
    edit((x) => {
      const list = outboundsOf(x).slice();
      if (at === null) list.push(o);
      else list[at] = o;
      return withOutbounds(x, list);
    });
    announce(
      at === null ? t('outboundAdded', { tag: tag || o.protocol }) : t('outboundChanged', { tag: tag || o.protocol }),
    );
    setDialog(null);
  };
  const preview = dialog
    ? (() => {
        try {
          const o = JSON.parse(dialog.text);
          return { tag: String(o?.tag ?? ''), protocol: String(o?.protocol ?? '') };
        } catch {
          return null;
        }
      })()
    : null;

  return (
    <div class="stack">
      <div class="row">
        <label class="grow">
          {t('testUrl')}
          <input
            type="url"
            value={props.testUrl}
            aria-describedby="cc-testurl-hint"
            onInput={(e) => props.setTestUrl((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <p id="cc-testurl-hint" class="muted cc-hint">
        {props.testUrl !== props.savedUrl ? t('testUrlUnsaved') : t('testUrlHelp')}
      </p>
      <div class="row">
        <p class="muted grow">{t('outboundsHelp')}</p>
        <button type="button" class="primary" onClick={() => open(null)}>
          {t('addOutbound')}
        </button>
      </div>
      {outbounds.length === 0 ? (
        <p class="muted">{t('noOutbounds')}</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>{t('tag')}</th>
              <th>{t('protocol')}</th>
              <th>{t('testResult')}</th>
              <th>
                <span class="visually-hidden">{t('actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {outbounds.map((o, i) => {
              const tag = String(o.tag ?? '');
              const p = probes[tag];
              return (
                <tr key={i}>
                  <td data-label={t('tag')}>{tag || <span class="muted">{t('noTag')}</span>}</td>
                  <td data-label={t('protocol')}>{String(o.protocol ?? '')}</td>
                  <td data-label={t('testResult')} aria-live="polite">
                    {!p ? (
                      <span class="muted">—</span>
                    ) : p.busy ? (
                      <span aria-busy="true">{t('testing')}</span>
                    ) : p.success ? (
                      <span class="state-running">{t('latency', { ms: p.delay })}</span>
                    ) : (
                      <span class="state-error">{p.error}</span>
                    )}
                  </td>
                  <td>
                    <span class="row cc-actions">
                      <button
                        type="button"
                        aria-label={t('testTag', { tag: tag || String(i + 1) })}
                        disabled={p?.busy}
                        onClick={() => void test(o)}
                      >
                        {t('test')}
                      </button>
                      <button
                        type="button"
                        aria-label={t('editTag', { tag: tag || String(i + 1) })}
                        onClick={() => open(i)}
                      >
                        {t('edit')}
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={t('deleteTag', { tag: tag || String(i + 1) })}
                        onClick={() => {
                          edit((x) =>
                            withOutbounds(
                              x,
                              outboundsOf(x).filter((_, j) => j !== i),
                            ),
                          );
                          announce(t('outboundDeleted', { tag: tag || String(i + 1) }));
                        }}
                      >
                        {t('delete')}
                      </button>
                    </span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Dialog
        title={dialog?.index === null ? t('addOutbound') : t('editOutbound')}
        open={dialog !== null}
        onClose={() => setDialog(null)}
        wide
      >
        {dialog && (
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              apply();
            }}
          >
            <p class="muted">
              {preview
                ? t('outboundPreview', { tag: preview.tag || '—', protocol: preview.protocol || '—' })
                : t('notJsonYet')}
            </p>
            <label>
              {t('outboundJson')}
              <textarea
                class="mono"
                rows={14}
                value={dialog.text}
                spellcheck={false}
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={error ? 'cc-outbound-error' : undefined}
                onInput={(e) => setDialog({ ...dialog, text: (e.target as HTMLTextAreaElement).value })}
              />
            </label>
            <div id="cc-outbound-error" role="alert" class="alert">
              {error}
            </div>
            <div class="actions">
              <button type="button" onClick={() => setDialog(null)}>
                {t('cancel')}
              </button>
              <button type="submit" class="primary">
                {t('apply')}
              </button>
            </div>
          </form>
        )}
      </Dialog>
    </div>
  );
}

/** A JSON textarea for one section of the template; "Apply" puts it into the template, empty removes it. */
function SectionEditor(props: {
  label: string;
  help: string;
  value: unknown;
  kind: 'array' | 'object';
  put: (v: unknown) => void;
}) {
  const [text, setText] = useState(props.value === undefined ? '' : pretty(props.value));
  const [error, setError] = useState('');
  const id = `cc-sec-${props.kind}`;
  const apply = () => {
    if (!text.trim()) {
      props.put(undefined);
      setError('');
      announce(t('sectionRemoved', { section: props.label }));
      return;
    }
    const p = jsonProblem(text);
    if (p) return setError(t('jsonError', { line: p.line, column: p.column, message: p.message }));
    const v = JSON.parse(text);
    const ok = props.kind === 'array' ? Array.isArray(v) : !!v && typeof v === 'object' && !Array.isArray(v);
    if (!ok) return setError(props.kind === 'array' ? t('mustBeArray') : t('mustBeObject'));
    setError('');
    props.put(v);
    announce(t('sectionApplied', { section: props.label }));
  };
  return (
    <div class="stack">
      <p class="muted">{props.help}</p>
      <label>
        {props.label}
        <textarea
          class="mono"
          rows={16}
          value={text}
          spellcheck={false}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={`${id}-error`}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <div id={`${id}-error`} role="alert" class="alert">
        {error}
      </div>
      <div class="row">
        <button type="button" class="primary" onClick={apply}>
          {t('apply')}
        </button>
      </div>
    </div>
  );
}

export function BalancersTab({ tpl, edit }: TemplateProps) {
  return (
    <SectionEditor
      key={pretty(tpl.routing?.balancers ?? null)}
      label={t('balancersJson')}
      help={t('balancersHelp')}
      value={tpl.routing?.balancers}
      kind="array"
      put={(v) =>
        edit((x) => {
          const routing = { ...(x.routing ?? {}) };
          if (v === undefined) delete routing.balancers;
          else routing.balancers = v;
          return { ...x, routing };
        })
      }
    />
  );
}

export function DnsTab({ tpl, edit }: TemplateProps) {
  return (
    <SectionEditor
      key={pretty(tpl.dns ?? null)}
      label={t('dnsJson')}
      help={t('dnsHelp')}
      value={tpl.dns}
      kind="object"
      put={(v) =>
        edit((x) => {
          const next = { ...x };
          if (v === undefined) delete next.dns;
          else next.dns = v;
          return next;
        })
      }
    />
  );
}
