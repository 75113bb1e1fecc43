// Overview: the status snapshot live from `status` messages, the core state from `coreState`, stop/restart.
import { useEffect, useState } from 'preact/hooks';
import { api, type StatusSnapshot } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { bytes, duration, num } from '../i18n';
import { call } from '../api';
import type { ComponentType } from 'preact';
import { Backup } from './backup';

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

interface CoreMetricsState {
  enabled: boolean;
  listen?: string;
  reason?: string;
  values: Record<string, number> | null;
}
interface ObservatoryEntry {
  tag: string;
  alive: boolean;
  delay: number;
}
/** Core metrics and observatory are read again on live status messages, at most this often. */
const CORE_METRICS_EVERY_MS = 30_000;

/** The core's own metrics (memory, GC) and its observatory's outbound probes, when the core config enables them. */
function CoreMetrics() {
  const [m, setM] = useState<CoreMetricsState | null>(null);
  const [obs, setObs] = useState<ObservatoryEntry[]>([]);
  useEffect(() => {
    let last = 0;
    const load = () => {
      last = Date.now();
      call<CoreMetricsState>('GET', 'panel/api/server/coreMetricsState').then(setM, () => undefined);
      call<ObservatoryEntry[]>('GET', 'panel/api/server/coreObservatory').then(setObs, () => undefined);
    };
    load();
    const off = onLive((msg) => {
      if (msg.type === 'status' && !document.hidden && Date.now() - last >= CORE_METRICS_EVERY_MS) load();
    });
    const offRe = onReconnect(load);
    return () => {
      off();
      offRe();
    };
  }, []);
  if (!m) return null;
  return (
    <section class="card" aria-labelledby="h-core-metrics">
      <h2 id="h-core-metrics">Core metrics</h2>
      {m.enabled && m.values ? (
        <dl class="facts">
          <dt>Allocated</dt>
          <dd>{bytes(m.values.coreAlloc ?? 0)}</dd>
          <dt>From the system</dt>
          <dd>{bytes(m.values.coreSys ?? 0)}</dd>
          <dt>Heap objects</dt>
          <dd>{num(m.values.coreHeapObjects ?? 0)}</dd>
          <dt>GC runs</dt>
          <dd>{num(m.values.coreNumGC ?? 0)}</dd>
        </dl>
      ) : (
        <p class="muted">Not available{m.reason ? `: ${m.reason}` : ' (the core config has no metrics section)'}</p>
      )}
      {obs.length > 0 && (
        <>
          <h3>Observatory</h3>
          <ul class="plain">
            {obs.map((o) => (
              <li key={o.tag}>
                <span class={`dot ${o.alive ? 'on' : ''}`} aria-hidden="true" />
                {o.tag}: {o.alive ? `${num(o.delay)} ms` : 'down'}
              </li>
            ))}
          </ul>
        </>
      )}
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
            <div class="muted">
              Total ↑ {bytes(s.netTraffic?.sent ?? 0)} ↓ {bytes(s.netTraffic?.recv ?? 0)}
            </div>
            <div class="muted">
              TCP connections: {num(s.tcpCount)} · UDP: {num(s.udpCount ?? 0)}
            </div>
          </section>
          <section class="card" aria-labelledby="h-Panel">
            <h2 id="h-Panel">Panel</h2>
            <div>{s.panelVersion}</div>
            <div class="muted">Panel uptime: {duration(s.panelUptime ?? 0)}</div>
            <div class="muted">System uptime: {duration(s.uptime ?? 0)}</div>
          </section>
          <CoreMetrics />
        </div>
      ) : (
        <p class="muted">Loading…</p>
      )}
      <Backup />
      {Charts && <Charts />}
    </>
  );
}
