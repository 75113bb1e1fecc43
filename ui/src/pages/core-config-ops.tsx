// The operational tabs of the core configuration page: outbound traffic counters (refetched on the WebSocket's
// traffic messages, never polled), core versions with install, the geo files, and custom geo sources.
import { useEffect, useState } from 'preact/hooks';
import { announce } from '../announce';
import { ConfirmDialog, Dialog } from '../common';
import { bytes, dateTime } from '../i18n';
import { onLive, onReconnect } from '../live';
import { useRefetch } from '../refetch';
import { t } from './core-config.i18n';
import { coreApi, GEO_FILE_NAMES, type GeoInput, type GeoSource, type OutboundTraffic } from './core-config.api';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function TrafficTab() {
  const [rows, setRows] = useState<OutboundTraffic[] | null>(null);
  const [error, setError] = useState('');
  const live = useRefetch(() =>
    coreApi.traffic().then(
      (r) => {
        setRows(r ?? []);
        setError('');
      },
      (e) => setError(message(e)),
    ),
  );
  useEffect(() => {
    live.run();
    const off = onLive((m) => {
      if (m.type === 'traffic') live.soon();
    });
    const offRe = onReconnect(live.run);
    return () => {
      off();
      offRe();
    };
  }, []);
  const reset = async (tag: string) => {
    try {
      await coreApi.resetTraffic(tag);
      announce(tag === '-alltags-' ? t('trafficResetAll') : t('trafficReset', { tag }));
      live.run();
    } catch (e) {
      announce(message(e), true);
    }
  };
  return (
    <div class="stack">
      <div class="row">
        <p class="muted grow">{t('trafficHelp')}</p>
        <button type="button" class="danger" disabled={!rows?.length} onClick={() => void reset('-alltags-')}>
          {t('resetAll')}
        </button>
      </div>
      {error && <p class="alert">{error}</p>}
      {rows === null ? (
        !error && <p class="muted">{t('loading')}</p>
      ) : rows.length === 0 ? (
        <p class="muted">{t('noTraffic')}</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>{t('tag')}</th>
              <th>{t('trafficUp')}</th>
              <th>{t('trafficDown')}</th>
              <th>{t('total')}</th>
              <th>
                <span class="visually-hidden">{t('actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.tag}>
                <td data-label={t('tag')}>{r.tag}</td>
                <td data-label={t('trafficUp')}>{bytes(r.up)}</td>
                <td data-label={t('trafficDown')}>{bytes(r.down)}</td>
                <td data-label={t('total')}>{bytes(r.total || r.up + r.down)}</td>
                <td>
                  <button type="button" aria-label={t('resetTag', { tag: r.tag })} onClick={() => void reset(r.tag)}>
                    {t('reset')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function VersionsTab({ onGeoChange }: { onGeoChange: () => void }) {
  return (
    <div class="stack">
      <CoreVersions />
      <GeoFiles />
      <CustomGeo onChange={onGeoChange} />
    </div>
  );
}

function CoreVersions() {
  const [current, setCurrent] = useState('');
  const [versions, setVersions] = useState<string[] | null>(null);
  const [listError, setListError] = useState('');
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const loadList = () => {
    setListError('');
    coreApi.coreVersions().then(
      (v) => {
        setVersions(v);
        setChosen((c) => c || v[0] || '');
      },
      (e) => {
        setVersions([]);
        setListError(message(e));
      },
    );
  };
  useEffect(() => {
    coreApi.status().then(
      (s) => setCurrent(s.core.version),
      () => undefined,
    );
    loadList();
  }, []);
  const install = async () => {
    if (!chosen || busy) return;
    setBusy(true);
    setResult(null);
    try {
      const r = await coreApi.installCore(chosen);
      const text = r.restarted
        ? t('installedRestarted', { version: r.version })
        : t('installed', { version: r.version, note: r.note ?? '' });
      setResult({ ok: true, text });
      announce(text);
      coreApi.status().then(
        (s) => setCurrent(s.core.version),
        () => undefined,
      );
    } catch (e) {
      setResult({ ok: false, text: message(e) });
      announce(t('installFailed', { error: message(e) }), true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card stack" aria-labelledby="cc-versions">
      <h2 id="cc-versions">{t('coreVersion')}</h2>
      <p>{t('currentVersion', { version: current || '—' })}</p>
      {listError && (
        <p class="alert">
          {t('versionsFailed')} {listError}
        </p>
      )}
      <div class="row" aria-busy={busy ? 'true' : undefined}>
        <label>
          {t('version')}
          <select
            value={chosen}
            disabled={!versions?.length || busy}
            onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}
          >
            {(versions ?? []).map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="primary cc-align-end" disabled={!chosen || busy} onClick={install}>
          {t('install')}
        </button>
        <button type="button" class="cc-align-end" disabled={busy} onClick={loadList}>
          {t('reloadVersions')}
        </button>
      </div>
      {busy && (
        <div class="row">
          <progress aria-label={t('installing', { version: chosen })} />
          <span>{t('installing', { version: chosen })}</span>
        </div>
      )}
      {result && (
        <p role={result.ok ? 'status' : 'alert'} class={result.ok ? 'status' : 'alert'}>
          {result.text}
        </p>
      )}
    </section>
  );
}

function GeoFiles() {
  const [file, setFile] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async () => {
    setBusy(true);
    setResult(null);
    try {
      const r = await coreApi.updateGeofile(file);
      const text = r.restarted
        ? t('geoUpdatedRestarted', { files: r.updated.join(', ') })
        : t('geoUpdated', { files: r.updated.join(', ') });
      setResult({ ok: true, text });
      announce(text);
    } catch (e) {
      setResult({ ok: false, text: message(e) });
      announce(t('geoFailed', { error: message(e) }), true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card stack" aria-labelledby="cc-geofiles">
      <h2 id="cc-geofiles">{t('geoFiles')}</h2>
      <div class="row" aria-busy={busy ? 'true' : undefined}>
        <label>
          {t('geoFile')}
          <select value={file} disabled={busy} onChange={(e) => setFile((e.target as HTMLSelectElement).value)}>
            <option value="">{t('geoDefaultFiles')}</option>
            {GEO_FILE_NAMES.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="primary cc-align-end" disabled={busy} onClick={run}>
          {t('updateGeo')}
        </button>
      </div>
      {busy && (
        <div class="row">
          <progress aria-label={t('geoUpdating')} />
          <span>{t('geoUpdating')}</span>
        </div>
      )}
      {result && (
        <p role={result.ok ? 'status' : 'alert'} class={result.ok ? 'status' : 'alert'}>
          {result.text}
        </p>
      )}
    </section>
  );
}

type GeoDialog = { kind: 'add' } | { kind: 'edit' | 'delete'; source: GeoSource };

function CustomGeo({ onChange }: { onChange: () => void }) {
  const [sources, setSources] = useState<GeoSource[] | null>(null);
  const [listError, setListError] = useState('');
  const [dialog, setDialog] = useState<GeoDialog | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<string>('');
  /** Per-source errors of the last "Update all" (the list's own error column shows the stored status too). */
  const [failures, setFailures] = useState<Record<number, string>>({});
  const load = () =>
    coreApi.geoList().then(
      (s) => {
        setSources(s);
        setListError('');
      },
      (e) => setListError(message(e)),
    );
  useEffect(() => void load(), []);

  const act = async (key: string, what: () => Promise<unknown>, done: string, inDialog = false) => {
    setBusy(key);
    setError('');
    try {
      await what();
      announce(done);
      if (inDialog) setDialog(null);
      onChange();
    } catch (e) {
      if (inDialog) setError(message(e));
      announce(message(e), true);
    } finally {
      setBusy('');
      void load();
    }
  };
  const updateAll = async () => {
    setBusy('all');
    try {
      const r = await coreApi.geoUpdateAll();
      setFailures(Object.fromEntries(r.failed.map((f) => [f.id, f.error])));
      const text = t('geoAllResult', { ok: r.succeeded.length, failed: r.failed.length });
      announce(text, r.failed.length > 0);
      onChange();
    } catch (e) {
      announce(message(e), true);
    } finally {
      setBusy('');
      void load();
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const input: GeoInput = {
      type: String(f.get('type')) as GeoInput['type'],
      alias: String(f.get('alias') ?? '').trim(),
      url: String(f.get('url') ?? '').trim(),
    };
    if (dialog?.kind === 'edit') {
      const id = dialog.source.id;
      void act('dialog', () => coreApi.geoUpdate(id, input), t('geoSaved', { alias: input.alias }), true);
    } else void act('dialog', () => coreApi.geoAdd(input), t('geoAdded', { alias: input.alias }), true);
  };
  const editing = dialog?.kind === 'edit' ? dialog.source : null;

  return (
    <section class="card stack" aria-labelledby="cc-customgeo">
      <div class="row">
        <h2 id="cc-customgeo" class="grow">
          {t('customGeo')}
        </h2>
        <button type="button" disabled={!!busy || !sources?.length} onClick={updateAll}>
          {t('updateAll')}
        </button>
        <button
          type="button"
          class="primary"
          onClick={() => {
            setError('');
            setDialog({ kind: 'add' });
          }}
        >
          {t('addSource')}
        </button>
      </div>
      <p class="muted">{t('customGeoHelp')}</p>
      {busy === 'all' && (
        <div class="row">
          <progress aria-label={t('geoUpdating')} />
          <span>{t('geoUpdating')}</span>
        </div>
      )}
      {listError && <p class="alert">{listError}</p>}
      {sources === null ? (
        !listError && <p class="muted">{t('loading')}</p>
      ) : sources.length === 0 ? (
        <p class="muted">{t('noSources')}</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>{t('alias')}</th>
              <th>{t('type')}</th>
              <th>{t('state')}</th>
              <th>{t('usage')}</th>
              <th>
                <span class="visually-hidden">{t('actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sources.map((s) => {
              const err = failures[s.id] || s.error;
              return (
                <tr key={s.id}>
                  <td data-label={t('alias')}>
                    {s.alias}
                    <div class="muted cc-url">{s.url}</div>
                  </td>
                  <td data-label={t('type')}>{s.type}</td>
                  <td data-label={t('state')}>
                    {err ? (
                      <span class="state-error">{t('geoError', { error: err })}</span>
                    ) : s.status === 'ok' ? (
                      <span class="state-running">
                        {t('geoOk', { when: s.lastDownload ? dateTime(s.lastDownload * 1000) : '—' })}
                      </span>
                    ) : (
                      <span class="muted">{t('geoPending')}</span>
                    )}
                  </td>
                  <td data-label={t('usage')}>
                    <code>{s.usage}</code>
                  </td>
                  <td>
                    <span class="row cc-actions">
                      <button
                        type="button"
                        aria-label={t('editTag', { tag: s.alias })}
                        onClick={() => {
                          setError('');
                          setDialog({ kind: 'edit', source: s });
                        }}
                      >
                        {t('edit')}
                      </button>
                      <button
                        type="button"
                        aria-label={t('downloadAgainTag', { tag: s.alias })}
                        disabled={!!busy}
                        aria-busy={busy === `dl${s.id}` ? 'true' : undefined}
                        onClick={() =>
                          void act(`dl${s.id}`, () => coreApi.geoDownload(s.id), t('geoDownloaded', { alias: s.alias }))
                        }
                      >
                        {busy === `dl${s.id}` ? t('downloading') : t('downloadAgain')}
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={t('deleteTag', { tag: s.alias })}
                        onClick={() => {
                          setError('');
                          setDialog({ kind: 'delete', source: s });
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
        title={editing ? t('editSource') : t('addSource')}
        open={dialog?.kind === 'add' || dialog?.kind === 'edit'}
        onClose={() => setDialog(null)}
      >
        {(dialog?.kind === 'add' || dialog?.kind === 'edit') && (
          <form class="stack" onSubmit={submit} aria-busy={busy === 'dialog' ? 'true' : undefined}>
            <label>
              {t('type')}
              <select name="type" defaultValue={editing?.type ?? 'geosite'}>
                <option value="geosite">geosite</option>
                <option value="geoip">geoip</option>
              </select>
            </label>
            <label>
              {t('alias')}
              <input name="alias" type="text" required defaultValue={editing?.alias ?? ''} />
            </label>
            <label>
              {t('sourceUrl')}
              <input
                name="url"
                type="url"
                required
                defaultValue={editing?.url ?? ''}
                placeholder="https://example.com/list.dat"
              />
            </label>
            <div role="alert" class="alert">
              {error}
            </div>
            <div class="actions">
              <button type="button" onClick={() => setDialog(null)}>
                {t('cancel')}
              </button>
              <button type="submit" class="primary" disabled={busy === 'dialog'}>
                {busy === 'dialog' ? t('downloading') : t('saveSource')}
              </button>
            </div>
          </form>
        )}
      </Dialog>
      <ConfirmDialog
        title={t('deleteSource')}
        open={dialog?.kind === 'delete'}
        onClose={() => setDialog(null)}
        action={t('delete')}
        onConfirm={() =>
          dialog?.kind === 'delete' &&
          void act(
            'del',
            () => coreApi.geoDelete(dialog.source.id),
            t('geoDeleted', { alias: dialog.source.alias }),
            true,
          )
        }
        error={error}
      >
        {dialog?.kind === 'delete' && (
          <p>{t('deleteSourceQ', { alias: dialog.source.alias, file: dialog.source.fileName })}</p>
        )}
      </ConfirmDialog>
    </section>
  );
}
