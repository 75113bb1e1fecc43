// Small shared pieces: the language picker, dialogs on the native <dialog> (focus trap, Esc).
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { LANGS, lang, setLang, type Lang } from './i18n';
import { t } from './shell.i18n';

/**
 * The combobox "Language" (on every app page and the login page): the choice is kept in this browser. Its name keeps
 * the English word beside the translation, so someone who picked a language they cannot read finds the way back.
 */
export function LanguagePicker() {
  return (
    <select
      aria-label={t('language')}
      value={lang()}
      onChange={(e) => setLang((e.target as HTMLSelectElement).value as Lang)}
    >
      {LANGS.map(([code, name]) => (
        <option key={code} value={code} lang={code}>
          {name}
        </option>
      ))}
    </select>
  );
}

export function Dialog(props: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Not derived from the title: a translated title may have no Latin letters to make an id from.
  const id = `dlg-${useId()}`;
  useEffect(() => {
    const d = ref.current!;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={id}
      onClose={props.onClose}
      style={props.wide ? { width: 'min(760px, calc(100vw - 24px))' } : undefined}
    >
      {props.open && (
        <>
          <h2 id={id}>{props.title}</h2>
          {props.children}
        </>
      )}
    </dialog>
  );
}

/** Asks before a destructive action: the question (children), the panel's error if any, Cancel and the action. */
export function ConfirmDialog(props: {
  title: string;
  open: boolean;
  onClose: () => void;
  action: string;
  onConfirm: () => void;
  error?: string;
  children: ComponentChildren;
}) {
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      {props.children}
      {props.error !== undefined && (
        <div role="alert" class="alert">
          {props.error}
        </div>
      )}
      <div class="actions">
        <button type="button" onClick={props.onClose}>
          {t('cancel')}
        </button>
        <button type="button" class="primary danger" onClick={props.onConfirm}>
          {props.action}
        </button>
      </div>
    </Dialog>
  );
}
