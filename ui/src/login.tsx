// The login page: username, password, the 2FA code when the panel asks for it; after login, back to the page
// the user came from (?next=).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, base } from './api';
import { LanguagePicker } from './common';
import { applyLang, onLangChange } from './i18n';
import { t } from './login.i18n';
import './styles.css';

function nextPage(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '';
  return /^panel\/[a-z-]*(\?[^\s\\]*)?$/.test(next) ? next : 'panel/';
}

function Login() {
  const [, setRev] = useState(0);
  useEffect(() => onLangChange(() => setRev((r) => r + 1)), []);
  const [twoFactor, setTwoFactor] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.twoFactorEnabled().then(setTwoFactor, () => undefined);
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    setBusy(true);
    setError('');
    try {
      await api.login(
        String(f.get('username')),
        String(f.get('password')),
        twoFactor ? String(f.get('code') ?? '') : undefined,
      );
      location.assign(base + nextPage());
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="stack" onSubmit={submit}>
        <div class="row">
          <h1 class="grow" style={{ margin: 0 }}>
            {t('title')}
          </h1>
          <LanguagePicker />
        </div>
        <label>
          {t('username')}
          <input name="username" autocomplete="username" required autoFocus />
        </label>
        <label>
          {t('password')}
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        {twoFactor && (
          <label>
            {t('code')}
            <input
              name="code"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]*"
              maxLength={8}
              required
            />
          </label>
        )}
        <div role="alert" class="alert">
          {error}
        </div>
        <button class="primary" type="submit" disabled={busy}>
          {t('submit')}
        </button>
      </form>
    </main>
  );
}

applyLang();
render(<Login />, document.getElementById('root')!);
