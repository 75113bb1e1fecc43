// The core configuration page (panel/core-config). This module stays small because the shell imports it: the page
// itself (core-config-page.tsx) and the CodeMirror editor (core-config-editor.ts) are loaded with import() when the
// page opens, so they are chunks of their own and no other page downloads them. Both loads start at once.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../shell.i18n';
import { announce } from '../announce';

export function CoreConfig() {
  const [Page, setPage] = useState<ComponentType | null>(null);
  useEffect(() => {
    void import('./core-config-editor').catch(() => undefined);
    import('./core-config-page').then(
      (m) => setPage(() => m.CoreConfigPage),
      (e) => announce(String(e instanceof Error ? e.message : e), true),
    );
  }, []);
  if (Page) return <Page />;
  return (
    <>
      <h1>{t('core')}</h1>
      <p class="muted" aria-busy="true">
        …
      </p>
    </>
  );
}
