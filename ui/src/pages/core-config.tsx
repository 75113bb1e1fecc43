// Not built yet: the page's own module, so its work lands here without touching the shell.
import { t } from '../shell.i18n';

export function CoreConfig() {
  return (
    <>
      <h1>{t('core')}</h1>
      <p class="muted">{t('notYet')}</p>
    </>
  );
}
