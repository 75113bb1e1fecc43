// Export an inbound as JSON (copy or download; the full inbound with its clients, the form /inbounds/import takes)
// and import one (pasted or from a file). Strings: inbounds.i18n.ts.
import { useEffect, useState } from 'preact/hooks';
import type { InboundRow } from '../api';
import { announce } from '../announce';
import { Dialog } from '../common';
import { inboundsApi } from './inbounds.api';
import { t } from './inbounds.i18n';

export function ExportInbound(props: { row: InboundRow | null; onClose: () => void }) {
  const [text, setText] = useState('');
  const row = props.row;
  useEffect(() => {
    setText('');
    if (!row) return;
    inboundsApi.get(row.id).then(
      (full) => setText(JSON.stringify(full, null, 2)),
      (err) => setText(`// ${err instanceof Error ? err.message : String(err)}`),
    );
  }, [row]);
  const name = row ? row.remark || row.tag : '';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      announce(t('copied'));
    } catch {
      announce(t('clipboardRefused'), true);
    }
  };
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `inbound-${row?.port ?? ''}.json` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <Dialog title={t('exportOf', { name })} open={!!row} onClose={props.onClose} wide>
      <div class="stack">
        <label>
          {t('inboundJson')}
          <textarea readOnly rows={14} value={text || t('loading')} class="mono" dir="ltr" />
        </label>
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            {t('close')}
          </button>
          <button type="button" onClick={download} disabled={!text}>
            {t('download')}
          </button>
          <button type="button" class="primary" onClick={copy} disabled={!text}>
            {t('copy')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}

export function ImportInbound(props: { open: boolean; onClose: () => void; onSaved: () => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (props.open) {
      setText('');
      setError('');
    }
  }, [props.open]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const ib = await inboundsApi.import(text);
      announce(t('imported', { name: ib.remark || ib.tag }));
      props.onSaved();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={t('importInbound')} open={props.open} onClose={props.onClose} wide>
      <form class="stack" onSubmit={submit}>
        <label>
          {t('inboundJson')}
          <textarea
            rows={12}
            class="mono"
            dir="ltr"
            value={text}
            required
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <label>
          {t('orFile')}
          <input
            type="file"
            accept="application/json,.json"
            onChange={async (e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              if (file) setText(await file.text());
            }}
          />
        </label>
        <div role="alert" class="alert">
          {error}
        </div>
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            {t('cancel')}
          </button>
          <button type="submit" class="primary" disabled={busy || !text.trim()}>
            {t('import')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
