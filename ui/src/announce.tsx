// The live region every action reports to (success → role=status, failure → role=alert).
import { useEffect, useState } from 'preact/hooks';
import { onLive } from './live';
import { t } from './shell.i18n';

interface Note {
  id: number;
  text: string;
  error: boolean;
}
let seq = 0;
const subs = new Set<(n: Note) => void>();

export function announce(text: string, error = false): void {
  const n = { id: ++seq, text, error };
  for (const fn of subs) fn(n);
}

export function Announcements() {
  const [notes, setNotes] = useState<Note[]>([]);
  useEffect(() => {
    const add = (n: Note) => {
      setNotes((xs) => [...xs.slice(-3), n]);
      setTimeout(() => setNotes((xs) => xs.filter((x) => x.id !== n.id)), 6000);
    };
    subs.add(add);
    // Server notifications (core stop/restart, panel restart…) are announced as well.
    const off = onLive((m) => {
      if (m.type === 'notification') add({ id: ++seq, text: `${m.title}: ${m.body}`, error: m.severity === 'error' });
    });
    return () => {
      subs.delete(add);
      off();
    };
  }, []);
  return (
    <div class="toast">
      <div role="status" aria-live="polite" aria-label={t('notifications')}>
        {notes
          .filter((n) => !n.error)
          .map((n) => (
            <p key={n.id} style={{ margin: 0 }}>
              {n.text}
            </p>
          ))}
      </div>
      <div role="alert" aria-label={t('errors')} class="error">
        {notes
          .filter((n) => n.error)
          .map((n) => (
            <p key={n.id} style={{ margin: 0 }}>
              {n.text}
            </p>
          ))}
      </div>
    </div>
  );
}
