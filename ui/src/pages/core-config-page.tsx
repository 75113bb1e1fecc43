// The core configuration page: one in-memory template (the JSON text) that every tab edits — the JSON editor, the
// routing rules, the outbounds, balancers and DNS — saved with "Save" (the server has the core test the config
// first and answers with the core's own error text when it refuses). Beside it: the default template and a diff
// against it, outbound traffic, the running config, core versions and geo files.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { announce } from '../announce';
import { onLive } from '../live';
import { t } from './core-config.i18n';
import { coreApi, type GeoAlias } from './core-config.api';
import { hunks, jsonProblem, lineDiff, parseObject, pretty, type Json } from './core-config-model';
import { BalancersTab, DnsTab, OutboundsTab, RoutingTab } from './core-config-routing';
import { TrafficTab, VersionsTab } from './core-config-ops';
import type { JsonEditor } from './core-config-editor';
import './core-config.css';
import { panelId, TabList, tabId } from '../tabs';

const TABS = ['json', 'routing', 'outbounds', 'balancers', 'dns', 'default', 'traffic', 'running', 'versions'] as const;
type Tab = (typeof TABS)[number];
const TAB_NAME: Record<Tab, Parameters<typeof t>[0]> = {
  json: 'tabJson',
  routing: 'tabRouting',
  outbounds: 'tabOutbounds',
  balancers: 'tabBalancers',
  dns: 'tabDns',
  default: 'tabDefault',
  traffic: 'tabTraffic',
  running: 'tabRunning',
  versions: 'tabVersions',
};

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export interface TemplateProps {
  tpl: Json;
  /** Applies an edit to the in-memory template (the JSON tab shows it at once). */
  edit: (f: (tpl: Json) => Json) => void;
}

export function CoreConfigPage() {
  const [text, setTextFromEditor] = useState<string | null>(null);
  // Edits from anywhere but the editor bump `rev`, and only then is the editor's document replaced (the editor's own
  // edits never come back to it: a stale render would otherwise push an older text into it and loop).
  const [rev, setRev] = useState(0);
  const setText = (s: string) => {
    setTextFromEditor(s);
    setRev((r) => r + 1);
  };
  const [saved, setSaved] = useState('');
  const [testUrl, setTestUrl] = useState('');
  const [savedUrl, setSavedUrl] = useState('');
  const [inboundTags, setInboundTags] = useState<string[]>([]);
  const [aliases, setAliases] = useState<GeoAlias[]>([]);
  const [tab, setTab] = useState<Tab>('json');
  const [coreState, setCoreState] = useState('');
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState('');
  const [loadError, setLoadError] = useState('');

  const load = async () => {
    try {
      const s = await coreApi.settings();
      setText(s.coreSetting);
      setSaved(s.coreSetting);
      setTestUrl(s.outboundTestUrl);
      setSavedUrl(s.outboundTestUrl);
      try {
        setInboundTags(JSON.parse(s.inboundTags));
      } catch {
        setInboundTags([]);
      }
    } catch (e) {
      setLoadError(message(e));
    }
  };
  const loadAliases = () =>
    coreApi.geoAliases().then(
      (a) => setAliases([...a.geosite, ...a.geoip]),
      () => setAliases([]),
    );

  useEffect(() => {
    void load();
    void loadAliases();
    coreApi.status().then(
      (s) => setCoreState(s.core.state),
      () => undefined,
    );
    return onLive((m) => {
      if (m.type === 'coreState') setCoreState(m.data);
      if (m.type === 'status') setCoreState(m.data.core.state);
    });
  }, []);

  const dirty = text !== null && (text !== saved || testUrl !== savedUrl);
  // Closing or reloading the tab with unsaved changes asks first (the browser's own question).
  useEffect(() => {
    if (!dirty) return;
    const ask = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener('beforeunload', ask);
    return () => removeEventListener('beforeunload', ask);
  }, [dirty]);

  const problem = text === null ? null : jsonProblem(text);
  const tpl = text === null || problem ? null : parseObject(text);
  const edit = (f: (tpl: Json) => Json) => {
    const cur = text === null ? null : parseObject(text);
    if (cur) setText(pretty(f(cur)));
  };

  const save = async () => {
    if (text === null || problem || saving) return;
    setSaveError('');
    setSaving(true);
    try {
      await coreApi.save(text, testUrl);
      setSaved(text);
      setSavedUrl(testUrl);
      let state = coreState;
      try {
        state = (await coreApi.status()).core.state;
        setCoreState(state);
      } catch {
        // the announcement below still says it was saved
      }
      announce(state === 'running' ? t('savedRestarted') : t('savedState', { state: state || '?' }));
      void loadAliases();
    } catch (e) {
      setSaveError(message(e));
      announce(t('saveRefused'), true);
    } finally {
      setSaving(false);
    }
  };

  if (loadError)
    return (
      <>
        <h1>{t('title')}</h1>
        <p role="alert" class="alert">
          {loadError}
        </p>
      </>
    );
  if (text === null)
    return (
      <>
        <h1>{t('title')}</h1>
        <p class="muted" aria-busy="true">
          {t('loading')}
        </p>
      </>
    );

  const templateTab = (body: (p: TemplateProps) => ComponentChildren) =>
    tpl ? (
      body({ tpl, edit })
    ) : (
      <p class="alert">{problem ? t('fixJsonFirst', { line: problem.line }) : t('notAnObject')}</p>
    );

  return (
    <div class="core-config">
      <div class="row cc-head">
        <h1 class="grow">{t('title')}</h1>
        <span class="muted">
          {t('coreIs')} <strong class={`state-${coreState}`}>{coreState || '…'}</strong>
        </span>
      </div>
      <div class="row cc-savebar">
        <button
          type="button"
          class="primary"
          onClick={save}
          disabled={!!problem || saving}
          aria-describedby={problem ? 'cc-json-error' : undefined}
        >
          {t('save')}
        </button>
        <button
          type="button"
          disabled={!dirty || saving}
          onClick={() => {
            setText(saved);
            setTestUrl(savedUrl);
            setSaveError('');
            announce(t('reverted'));
          }}
        >
          {t('revert')}
        </button>
        <span class="muted" aria-live="polite">
          {saving ? t('saving') : dirty ? t('unsaved') : t('allSaved')}
        </span>
      </div>
      <div id="cc-json-error" role="alert" class="alert">
        {problem && t('jsonError', { line: problem.line, column: problem.column, message: problem.message })}
      </div>
      <div role="alert" class="alert cc-save-error" aria-label={t('coreRefused')}>
        {saveError && (
          <>
            <strong>{t('coreRefused')}</strong>
            <pre>{saveError}</pre>
          </>
        )}
      </div>

      <TabList
        label={t('sections')}
        prefix="cc"
        ids={TABS}
        current={tab}
        name={(k) => t(TAB_NAME[k])}
        onChoose={setTab}
      />
      <div role="tabpanel" id={panelId('cc', tab)} aria-labelledby={tabId('cc', tab)} class="cc-panel" tabIndex={-1}>
        {tab === 'json' && <JsonTab text={text} rev={rev} onEdit={setTextFromEditor} />}
        {tab === 'routing' && templateTab((p) => <RoutingTab {...p} aliases={aliases} inboundTags={inboundTags} />)}
        {tab === 'outbounds' &&
          templateTab((p) => <OutboundsTab {...p} testUrl={testUrl} setTestUrl={setTestUrl} savedUrl={savedUrl} />)}
        {tab === 'balancers' && templateTab((p) => <BalancersTab {...p} />)}
        {tab === 'dns' && templateTab((p) => <DnsTab {...p} />)}
        {tab === 'default' && <DefaultTab text={text} setText={setText} />}
        {tab === 'traffic' && <TrafficTab />}
        {tab === 'running' && <RunningTab coreState={coreState} />}
        {tab === 'versions' && <VersionsTab onGeoChange={loadAliases} />}
      </div>
    </div>
  );
}

function JsonTab({ text, rev, onEdit }: { text: string; rev: number; onEdit: (s: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<JsonEditor | null>(null);
  const [failed, setFailed] = useState('');
  const [ready, setReady] = useState(false);
  // The latest text, for the editor created after an await.
  const latest = useRef(text);
  latest.current = text;
  useEffect(() => {
    let gone = false;
    import('./core-config-editor').then(
      (m) => {
        if (gone || !host.current) return;
        editor.current = m.mountEditor(host.current, {
          text: latest.current,
          label: t('editorLabel'),
          onChange: onEdit,
        });
        setReady(true);
      },
      (e) => setFailed(message(e)),
    );
    return () => {
      gone = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);
  useEffect(() => editor.current?.setText(latest.current), [rev]);
  return (
    <>
      <p id="cc-json-help" class="muted">
        {t('jsonHelp')}
      </p>
      {failed ? (
        <p class="alert">{t('editorFailed', { message: failed })}</p>
      ) : (
        <div ref={host} class="cc-editor" aria-busy={ready ? undefined : 'true'} />
      )}
    </>
  );
}

function DefaultTab({ text, setText }: { text: string; setText: (s: string) => void }) {
  const [def, setDef] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [view, setView] = useState<'diff' | 'default'>('diff');
  useEffect(() => {
    coreApi.defaultTemplate().then(
      (d) => setDef(pretty(d)),
      (e) => setError(message(e)),
    );
  }, []);
  if (error) return <p class="alert">{error}</p>;
  if (def === null) return <p class="muted">{t('loading')}</p>;
  const cur = parseObject(text);
  const diff = lineDiff(def, cur ? pretty(cur) : text);
  const changes = diff?.filter((d) => d.kind !== ' ').length ?? 0;
  return (
    <div class="stack">
      <p class="muted">{t('defaultHelp')}</p>
      <div class="row">
        <fieldset class="cc-seg">
          <legend class="visually-hidden">{t('show')}</legend>
          <label class="inline">
            <input type="radio" name="cc-def" checked={view === 'diff'} onChange={() => setView('diff')} />
            {t('diffView')}
          </label>
          <label class="inline">
            <input type="radio" name="cc-def" checked={view === 'default'} onChange={() => setView('default')} />
            {t('defaultView')}
          </label>
        </fieldset>
        <span class="grow" />
        <button
          type="button"
          onClick={() => {
            setText(def);
            announce(t('defaultLoaded'));
          }}
        >
          {t('useDefault')}
        </button>
      </div>
      {view === 'default' ? (
        <pre class="cc-code" aria-label={t('defaultView')} tabIndex={0}>
          {def}
        </pre>
      ) : diff === null ? (
        <p class="muted">{t('diffTooLarge')}</p>
      ) : (
        <>
          <p>{changes ? t('diffCount', { n: changes }) : t('diffNone')}</p>
          <pre class="cc-code cc-diff" aria-label={t('diffView')} tabIndex={0}>
            {hunks(diff).map((d, i) =>
              d.kind === 'gap' ? (
                <div key={i} class="cc-gap">
                  {t('unchangedLines', { n: d.count })}
                </div>
              ) : (
                <div key={i} class={d.kind === '+' ? 'add' : d.kind === '-' ? 'del' : undefined}>
                  <span class="cc-mark" aria-hidden="true">
                    {d.kind}
                  </span>
                  {d.kind !== ' ' && <span class="visually-hidden">{d.kind === '+' ? t('added') : t('removed')}</span>}
                  {d.text}
                </div>
              ),
            )}
          </pre>
        </>
      )}
    </div>
  );
}

function RunningTab({ coreState }: { coreState: string }) {
  const [cfg, setCfg] = useState<string | null>(null);
  const [error, setError] = useState('');
  const load = () => {
    setError('');
    coreApi.runningConfig().then(
      (c) => setCfg(pretty(c)),
      (e) => setError(message(e)),
    );
  };
  useEffect(load, [coreState]);
  return (
    <div class="stack">
      <div class="row">
        <p class="muted grow">{t('runningHelp')}</p>
        <button
          type="button"
          onClick={() => {
            load();
            announce(t('reloaded'));
          }}
        >
          {t('reload')}
        </button>
      </div>
      {error && <p class="alert">{error}</p>}
      {cfg === null ? (
        !error && <p class="muted">{t('loading')}</p>
      ) : (
        <pre class="cc-code" aria-label={t('tabRunning')} tabIndex={0}>
          {cfg}
        </pre>
      )}
    </div>
  );
}
