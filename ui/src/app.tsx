// The app shell: navigation "Main", Log out, one h1 per page, a client-side router over {base}panel/<page>
// (every page URL is also served by the panel, so reload and bookmarks work), and the announcements region.
import { render, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { navigate, useLocation } from './app-nav';
import { api, base } from './api';
import { connectLive } from './live';
import { LanguagePicker } from './common';
import { applyLang, lang, onLangChange } from './i18n';
import { t } from './shell.i18n';
import { Overview } from './pages/overview';
import { Inbounds } from './pages/inbounds';
import { Clients } from './pages/clients';
import { Groups } from './pages/groups';
import { Nodes } from './pages/nodes';
import { CoreConfig } from './pages/core-config';
import { Settings } from './pages/settings';
import { Logs } from './pages/logs';
import { announce, Announcements } from './announce';
import './styles.css';

const NAV = [
  ['', 'overview'],
  ['inbounds', 'inbounds'],
  ['clients', 'clients'],
  ['groups', 'groups'],
  ['nodes', 'nodes'],
  ['core-config', 'core'],
  ['settings', 'settings'],
  ['logs', 'logs'],
] as const;
const navName = (page: string) => {
  const key = NAV.find(([p]) => p === page)?.[1];
  return key ? t(key) : t('notFound');
};

const pageOf = () => location.pathname.slice(`${base}panel/`.length).replace(/\/$/, '');

function NotFound() {
  return <h1>{t('notFound')}</h1>;
}

function Page({ page }: { page: string }) {
  switch (page) {
    case '':
      return <Overview />;
    case 'inbounds':
      return <Inbounds />;
    case 'clients':
      return <Clients />;
    case 'groups':
      return <Groups />;
    case 'nodes':
      return <Nodes />;
    case 'core-config':
      return <CoreConfig />;
    case 'settings':
      return <Settings />;
    case 'logs':
      return <Logs />;
    default:
      return <NotFound />;
  }
}

function Shell({ children, page }: { children: ComponentChildren; page: string }) {
  const logout = async () => {
    try {
      await api.logout();
    } catch (err) {
      announce(String(err instanceof Error ? err.message : err), true);
      return;
    }
    location.assign(base);
  };
  return (
    <div class="shell">
      <header class="sidebar">
        <div class="brand">{t('brand')}</div>
        <nav aria-label={t('main')}>
          <ul>
            {NAV.map(([p, key]) => (
              <li key={p}>
                <a
                  href={`${base}panel/${p}`}
                  aria-current={p === page ? 'page' : undefined}
                  onClick={(e) => {
                    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                    e.preventDefault();
                    navigate(`${base}panel/${p}`);
                  }}
                >
                  {t(key)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="spacer" />
        <LanguagePicker />
        <button type="button" onClick={logout}>
          {t('logOut')}
        </button>
      </header>
      <main>{children}</main>
      <Announcements />
    </div>
  );
}

function App() {
  useLocation();
  const page = pageOf();
  // A language switch re-mounts the page, so every string and formatted value is rendered again.
  const [language, setLanguage] = useState(lang());
  useEffect(() => onLangChange(() => setLanguage(lang())), []);
  useEffect(() => {
    document.title = `${navName(page)} · ${t('brand')}`;
  }, [page, language]);
  return (
    <Shell page={page}>
      <Page key={`${page}:${language}`} page={page} />
    </Shell>
  );
}

applyLang();
connectLive();
render(<App />, document.getElementById('root')!);
