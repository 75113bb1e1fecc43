// The app shell: navigation "Main", Log out, one h1 per page, a client-side router over {base}panel/<page>
// (every page URL is also served by the panel, so reload and bookmarks work), and the announcements region.
import { render, type ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { navigate, useLocation } from './app-nav';
import { api, base } from './api';
import { connectLive } from './live';
import { LanguagePicker } from './common';
import { Overview } from './pages/overview';
import { Inbounds } from './pages/inbounds';
import { Clients } from './pages/clients';
import { Groups } from './pages/groups';
import { announce, Announcements } from './announce';
import './styles.css';

const NAV: [string, string][] = [
  ['', 'Overview'],
  ['inbounds', 'Inbounds'],
  ['clients', 'Clients'],
  ['groups', 'Groups'],
  ['nodes', 'Nodes'],
  ['core-config', 'Core'],
  ['settings', 'Settings'],
  ['logs', 'Logs'],
];

const pageOf = () => location.pathname.slice(`${base}panel/`.length).replace(/\/$/, '');

function NotYet({ title }: { title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p class="muted">This page is not part of the UI yet; the API serves everything it will show.</p>
    </>
  );
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
    default:
      return <NotYet title={NAV.find(([p]) => p === page)?.[1] ?? 'Not found'} />;
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
        <div class="brand">Panel</div>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([p, name]) => (
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
                  {name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="spacer" />
        <LanguagePicker />
        <button type="button" onClick={logout}>
          Log out
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
  useEffect(() => {
    document.title = `${NAV.find(([p]) => p === page)?.[1] ?? 'Panel'} · Panel`;
  }, [page]);
  return (
    <Shell page={page}>
      <Page key={page} page={page} />
    </Shell>
  );
}

connectLive();
render(<App />, document.getElementById('root')!);
