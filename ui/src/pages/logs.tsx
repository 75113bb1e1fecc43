// Not built yet: the page's own module, so its work lands here without touching the shell.
import { t } from '../shell.i18n';

export function Logs() {
  return (
    <>
      <h1>{t('logs')}</h1>
      <p class="muted">{t('notYet')}</p>
    </>
  );
}
