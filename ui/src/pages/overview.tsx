// Overview: the status snapshot live from `status` messages, the core state from `coreState`, stop/restart.
import { useEffect, useState } from 'preact/hooks';
import { api, type StatusSnapshot } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { bytes } from '../i18n';
import type { ComponentType } from 'preact';

const pct = (u: { current: number; total: number }) => (u.total ? (u.current / u.total) * 100 : 0);

function Usage({ title, u }: { title: string; u: { current: number; total: number } }) {
  return (
    <section class="card" aria-labelledby={`h-${title}`}>
      <h2 id={`h-${title}`}>{title}</h2>
      <div class="big">{pct(u).toFixed(1)}%</div>
      <div class="muted">
        {bytes(u.current)} of {bytes(u.total)}
      </div>
      <div class="bar" aria-hidden="true">
        <span style={{ width: `${pct(u)}%` }} />
      </div>
    </section>
  );
}

export function Overview() {
  const [s, setS] = useState<StatusSnapshot | null>(null);
  const [core, setCore] = useState<{ state: string; error?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [Charts, setCharts] = useState<ComponentType | null>(null);
  useEffect(() => {
    // uPlot only loads on the overview.
    import('./history').then(
      (m) => setCharts(() => m.History),
      (e) => announce(`charts failed to load: ${e.message}`, true),
    );
  }, []);

  useEffect(() => {
    const load = () =>
      api.status().then(
        (x) => {
          setS(x);
          setCore({ state: x.core.state });
        },
        (e) => announce(String(e.message ?? e), true),
      );
    load();
    const off = onLive((m) => {
      if (m.type === 'status') setS(m.data);
      if (m.type === 'coreState') setCore({ state: m.data, error: m.error });
    });
    const offRe = onReconnect(load);
    return () => {
      off();
      offRe();
    };
  }, []);

  const act = async (what: 'stop' | 'restart') => {
    setBusy(true);
    try {
      if (what === 'stop') await api.stopCore();
      else await api.restartCore();
      announce(what === 'stop' ? 'Core stopped' : 'Core restarted');
    } catch (err) {
      announce(err instanceof Error ? err.message : String(err), true);
    } finally {
      setBusy(false);
    }
  };

  const state = core?.state ?? s?.core.state ?? 'unknown';
  return (
    <>
      <h1>Overview</h1>
      <section class="card" style={{ marginBottom: '16px' }} aria-labelledby="h-core">
        <div class="row">
          <h2 id="h-core" class="grow" style={{ margin: 0 }}>
            Core {s?.core.version ? <span class="muted">v{s.core.version.replace(/^v/, '')}</span> : null}
          </h2>
          <button type="button" class="danger" disabled={busy} onClick={() => act('stop')}>
            Stop core
          </button>
          <button type="button" disabled={busy} onClick={() => act('restart')}>
            Restart core
          </button>
        </div>
        <p role="status" aria-label="Core state" class={`state-${state}`} style={{ margin: '8px 0 0' }}>
          {state}
          {core?.error ? ` — ${core.error}` : ''}
        </p>
      </section>
      {s ? (
        <div class="cards">
          <section class="card" aria-labelledby="h-CPU">
            <h2 id="h-CPU">CPU</h2>
            <div class="big">{s.cpu.toFixed(1)}%</div>
            <div class="muted">
              load {s.load.load1.toFixed(2)} · {s.load.load5.toFixed(2)} · {s.load.load15.toFixed(2)}
            </div>
            <div class="bar" aria-hidden="true">
              <span style={{ width: `${Math.min(100, s.cpu)}%` }} />
            </div>
          </section>
          <Usage title="Memory" u={s.mem} />
          <Usage title="Swap" u={s.swap} />
          <Usage title="Disk" u={s.disk} />
          <section class="card" aria-labelledby="h-Network">
            <h2 id="h-Network">Network</h2>
            <div class="big">↑ {bytes(s.netIO.up)}/s</div>
            <div class="big">↓ {bytes(s.netIO.down)}/s</div>
            <div class="muted">TCP connections: {s.tcpCount}</div>
          </section>
          <section class="card" aria-labelledby="h-Panel">
            <h2 id="h-Panel">Panel</h2>
            <div>{s.panelVersion}</div>
          </section>
        </div>
      ) : (
        <p class="muted">Loading…</p>
      )}
      {Charts && <Charts />}
    </>
  );
}
