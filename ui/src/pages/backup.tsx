// The Overview's backup card: "Download backup" (getDb through fetch + Blob, so a failure is announced instead
// of being saved as a file) and "Restore backup" (a dialog: the file, what will be replaced with the current
// counts, a confirmation; the upload with its progress; the outcome with the path of the automatic pre-import
// copy; then the page reloads once the restarted panel answers again).
import { useEffect, useState } from 'preact/hooks';
import { announce } from '../announce';
import { Dialog } from '../common';
import { bytes, num } from '../i18n';
import { onReconnect } from '../live';
import { downloadDatabase, panelAnswers, restoreCounts, saveFile, uploadDatabase, type ImportResult } from './logs.api';
import { t } from './backup.i18n';
import './backup.css';

type Phase =
  | { kind: 'form' }
  | { kind: 'uploading'; fraction: number }
  | { kind: 'restoring' }
  | { kind: 'done'; result: ImportResult; wait: 'waiting' | 'back' | 'slow'; slowFor?: number };

/** After the restart began (the import answer says 3 s), the panel counts as back once it answers again. */
const RESTART_FALLBACK_MS = 12_000;
const SLOW_MS = 60_000;

/**
 * Resolves when the restarted panel answers: the live socket reconnecting is the signal (the restart closes it);
 * polling the login page is the fallback (seen down and then up, or up after RESTART_FALLBACK_MS).
 */
function waitForPanel(onSlow: (seconds: number) => void): { done: Promise<void>; cancel: () => void } {
  let finished = false;
  let timer = 0;
  let off = () => {};
  const cancel = () => {
    finished = true;
    clearTimeout(timer);
    off();
  };
  const done = new Promise<void>((resolve) => {
    const finish = () => {
      if (finished) return;
      cancel();
      resolve();
    };
    off = onReconnect(finish);
    const start = Date.now();
    let down = false;
    const tick = async () => {
      if (finished) return;
      const up = await panelAnswers();
      const waited = Date.now() - start;
      if (up && (down || waited > RESTART_FALLBACK_MS)) return finish();
      if (!up) down = true;
      if (!up && waited > SLOW_MS) onSlow(Math.round(waited / 1000));
      if (!finished) timer = window.setTimeout(tick, 1000);
    };
    timer = window.setTimeout(tick, 1500);
  });
  return { done, cancel };
}

const MARK = '\u0000';
const KEPT_NAME = 'backups/panel_before-import_….db';
/** A translated sentence with a file path isolated (<bdi>), so a left-to-right path stays whole in Persian. */
const withPath = (sentence: string, path: string) => {
  const [before, after] = sentence.split(MARK);
  return (
    <>
      {before}
      <bdi dir="ltr">{path}</bdi>
      {after}
    </>
  );
};

export function Backup() {
  const [downloading, setDownloading] = useState(false);
  const [open, setOpen] = useState(false);
  const [phase, setPhase] = useState<Phase>({ kind: 'form' });
  const [file, setFile] = useState<File | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  const [errors, setErrors] = useState<{ file?: string; confirm?: string; form?: string }>({});
  const [counts, setCounts] = useState<{ inbounds: number | null; clients: number | null } | null>(null);

  useEffect(() => {
    if (phase.kind !== 'done') return;
    const w = waitForPanel((s) => setPhase((p) => (p.kind === 'done' ? { ...p, wait: 'slow', slowFor: s } : p)));
    void w.done.then(() => {
      // A new admin password (3x-ui import) is shown once: the reload waits for the operator.
      if (phase.result.newAdminPassword) {
        setPhase((p) => (p.kind === 'done' ? { ...p, wait: 'back' } : p));
        announce(t('back'));
      } else location.reload();
    });
    return w.cancel;
  }, [phase.kind]);

  const download = async () => {
    setDownloading(true);
    try {
      const { blob, fileName } = await downloadDatabase();
      saveFile(blob, fileName);
      announce(t('saved', { name: fileName, size: bytes(blob.size) }));
    } catch (err) {
      announce(t('downloadFailed', { msg: err instanceof Error ? err.message : String(err) }), true);
    } finally {
      setDownloading(false);
    }
  };

  const openRestore = () => {
    if (phase.kind === 'form') {
      setFile(null);
      setConfirmed(false);
      setErrors({});
    }
    setCounts(null);
    setOpen(true);
    void restoreCounts().then(setCounts);
  };

  const busy = phase.kind === 'uploading' || phase.kind === 'restoring' || phase.kind === 'done';

  const submit = async (e: Event) => {
    e.preventDefault();
    const errs: typeof errors = {};
    if (!file) errs.file = t('chooseFile');
    if (!confirmed) errs.confirm = t('mustConfirm');
    setErrors(errs);
    if (!file || !confirmed) return;
    setPhase({ kind: 'uploading', fraction: 0 });
    try {
      const { result } = await uploadDatabase(file, (fraction) =>
        setPhase(fraction >= 1 ? { kind: 'restoring' } : { kind: 'uploading', fraction }),
      );
      setPhase({ kind: 'done', result, wait: 'waiting' });
      announce(`${t('restored', { rows: result.rows, name: file.name })} ${t('keptAt', { path: result.backup })}`);
    } catch (err) {
      const msg = t('failed', { msg: err instanceof Error ? err.message : String(err) });
      setErrors({ form: msg });
      setPhase({ kind: 'form' });
      announce(msg, true);
    }
  };

  const progressText =
    phase.kind === 'uploading'
      ? t('uploading', { name: file?.name ?? '', pct: `${num(phase.fraction * 100)}%` })
      : phase.kind === 'restoring'
        ? t('restoring')
        : '';

  return (
    <section class="card backup-card" aria-labelledby="h-backup">
      <h2 id="h-backup">{t('heading')}</h2>
      <p class="muted">{t('intro')}</p>
      <div class="row">
        <button type="button" onClick={() => void download()} disabled={downloading} aria-busy={downloading}>
          {t('download')}
        </button>
        <button type="button" class="danger" onClick={openRestore}>
          {t('restore')}
        </button>
        {downloading && <span class="muted">{t('preparing')}</span>}
      </div>
      {!open && busy && (
        <p class="status backup-note" role="status">
          {phase.kind === 'done' ? t('waiting') : progressText}
        </p>
      )}
      <Dialog title={t('restore')} open={open} onClose={() => setOpen(false)}>
        <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
          <div class="stack backup-what">
            <p style={{ margin: 0 }}>{t('replaces')}</p>
            <ul>
              <li>{counts?.inbounds != null ? t('inboundsN', { n: counts.inbounds }) : t('inbounds')}</li>
              <li>{counts?.clients != null ? t('clientsN', { n: counts.clients }) : t('clients')}</li>
              <li>{t('settings')}</li>
              <li>{t('admin')}</li>
            </ul>
            <p class="muted" style={{ margin: 0 }}>
              {withPath(t('kept', { path: MARK }), KEPT_NAME)}
            </p>
            <p class="muted" style={{ margin: 0 }}>
              {t('restarts')}
            </p>
          </div>
          <div class="stack" style={{ gap: '4px' }}>
            <label for="restore-file">{t('file')}</label>
            <input
              id="restore-file"
              type="file"
              accept=".db,.sqlite,.sqlite3,application/octet-stream,application/vnd.sqlite3"
              disabled={busy}
              aria-invalid={errors.file ? true : undefined}
              aria-describedby={errors.file ? 'restore-file-hint restore-file-error' : 'restore-file-hint'}
              onChange={(e) => {
                setFile(e.currentTarget.files?.[0] ?? null);
                setErrors({ ...errors, file: undefined, form: undefined });
              }}
            />
            <span id="restore-file-hint" class="muted backup-hint">
              {t('fileHint')}
            </span>
            {errors.file && (
              <span id="restore-file-error" class="field-error">
                {errors.file}
              </span>
            )}
          </div>
          <div class="stack" style={{ gap: '4px' }}>
            <label class="inline">
              <input
                type="checkbox"
                checked={confirmed}
                disabled={busy}
                aria-invalid={errors.confirm ? true : undefined}
                aria-describedby={errors.confirm ? 'restore-confirm-error' : undefined}
                onChange={(e) => {
                  setConfirmed(e.currentTarget.checked);
                  setErrors({ ...errors, confirm: undefined });
                }}
              />
              {t('confirm')}
            </label>
            {errors.confirm && (
              <span id="restore-confirm-error" class="field-error">
                {errors.confirm}
              </span>
            )}
          </div>
          {(phase.kind === 'uploading' || phase.kind === 'restoring') && (
            <div class="stack" style={{ gap: '4px' }}>
              <progress
                aria-label={t('progress')}
                max={1}
                value={phase.kind === 'uploading' ? phase.fraction : undefined}
                class="backup-progress"
              />
              <p role="status" style={{ margin: 0 }}>
                {progressText}
              </p>
            </div>
          )}
          {phase.kind === 'done' && <Outcome phase={phase} name={file?.name ?? ''} />}
          <div role="alert" class="alert">
            {errors.form ?? ''}
          </div>
          <div class="actions">
            <button type="button" onClick={() => setOpen(false)}>
              {busy ? t('close') : t('cancel')}
            </button>
            {phase.kind !== 'done' && (
              <button type="submit" class="primary restore-submit" disabled={busy}>
                {t('submit')}
              </button>
            )}
          </div>
        </form>
      </Dialog>
    </section>
  );
}

function Outcome({ phase, name }: { phase: Extract<Phase, { kind: 'done' }>; name: string }) {
  const r = phase.result;
  return (
    <div class="status stack backup-outcome" role="status">
      <p>
        {t('restored', { rows: r.rows, name })} {withPath(t('keptAt', { path: MARK }), r.backup)}
      </p>
      {r.format === 'x-ui' && r.skipped.length > 0 && (
        <>
          <p>{t('fromXui', { n: r.skipped.length })}</p>
          <ul class="skipped">
            {r.skipped.map((s, i) => (
              <li key={i}>
                {s.what}: {s.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {r.newAdminPassword && (
        <p>
          <strong>{t('newPassword', { password: r.newAdminPassword })}</strong>
        </p>
      )}
      <p>
        {phase.wait === 'waiting'
          ? t('waiting')
          : phase.wait === 'slow'
            ? t('notBack', { s: phase.slowFor ?? 0 })
            : t('back')}
      </p>
      {phase.wait !== 'waiting' && (
        <div>
          <button type="button" onClick={() => location.reload()}>
            {t('reloadNow')}
          </button>
        </div>
      )}
    </div>
  );
}
