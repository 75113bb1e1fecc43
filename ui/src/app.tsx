// The app shell: navigation "Main", Log out, one h1 per page, a client-side router over {base}panel/<page>
// (every page URL is also served by the panel, so reload and bookmarks work), and the announcements region.
import { render, type ComponentChildren, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { navigate, useLocation } from './app-nav';
import { api, base } from './api';
import { connectLive } from './live';
import { LanguagePicker } from './common';
import { applyLang, lang, onLangChange } from './i18n';
import { t } from './shell.i18n';
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

/**
 * Each page is a chunk of its own, loaded when it is opened, so a page downloads only its code and the shell's.
 * The Core page also starts loading its editor at once.
 */
const PAGES: Record<string, () => Promise<ComponentType>> = {
  '': () => import('./pages/overview').then((m) => m.Overview),
  inbounds: () => import('./pages/inbounds').then((m) => m.Inbounds),
  clients: () => import('./pages/clients').then((m) => m.Clients),
  groups: () => import('./pages/groups').then((m) => m.Groups),
  nodes: () => import('./pages/nodes').then((m) => m.Nodes),
  'core-config': () => {
    void import('./pages/core-config-editor').catch(() => undefined);
    return import('./pages/core-config-page').then((m) => m.CoreConfigPage);
  },
  settings: () => import('./pages/settings').then((m) => m.Settings),
  logs: () => import('./pages/logs').then((m) => m.Logs),
};

function Page({ page }: { page: string }) {
  const [View, setView] = useState<ComponentType | null>(null);
  useEffect(() => {
    const load = PAGES[page];
    if (!load) return;
    let current = true;
    load().then(
      (c) => current && setView(() => c),
      (e) => announce(t('pageFailed', { msg: String(e instanceof Error ? e.message : e) }), true),
    );
    return () => {
      current = false;
    };
  }, [page]);
  if (!(page in PAGES)) return <NotFound />;
  if (View) return <View />;
  // No h1 until the page itself renders: its heading is the sign that the page is there.
  return (
    <p class="muted" aria-busy="true">
      {t('loading')}
    </p>
  );
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
