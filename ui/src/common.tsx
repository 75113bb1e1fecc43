// Small shared pieces: formatting, the language picker, dialogs on the native <dialog> (focus trap, Esc).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function bytes(n: number): string {
  if (!n) return '0 B';
  const u = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  const i = Math.min(u.length - 1, Math.floor(Math.log(Math.abs(n)) / Math.log(1024)));
  return `${(n / 1024 ** i).toFixed(i ? 2 : 0)} ${u[i]}`;
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
export function relative(ms: number, now = Date.now()): string {
  const d = ms - now;
  const abs = Math.abs(d);
  if (abs < 3_600_000) return rtf.format(Math.round(d / 60_000), 'minute');
  if (abs < 86_400_000) return rtf.format(Math.round(d / 3_600_000), 'hour');
  return rtf.format(Math.round(d / 86_400_000), 'day');
}

/** English only for now: the picker is there so the contract's combobox exists; other locales come later. */
export function LanguagePicker() {
  return (
    <label class="inline">
      <span class="visually-hidden">Language</span>
      <select
        aria-label="Language"
        onChange={(e) => (document.documentElement.lang = (e.target as HTMLSelectElement).value)}
      >
        <option value="en">English</option>
      </select>
    </label>
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
  useEffect(() => {
    const d = ref.current!;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={`dlg-${slug(props.title)}`}
      onClose={props.onClose}
      style={props.wide ? { width: 'min(760px, calc(100vw - 24px))' } : undefined}
    >
      {props.open && (
        <>
          <h2 id={`dlg-${slug(props.title)}`}>{props.title}</h2>
          {props.children}
        </>
      )}
    </dialog>
  );
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');
