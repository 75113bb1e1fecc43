// Overview: the status snapshot live from `status` messages, the core state from `coreState`, stop/restart.
import { useEffect, useState } from 'preact/hooks';
import { api, type StatusSnapshot } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { bytes, duration, num, percent } from '../i18n';
import { t } from './overview.i18n';
import { call } from '../api';
import type { ComponentType } from 'preact';
import { Backup } from './backup';

const pct = (u: { current: number; total: number }) => (u.total ? (u.current / u.total) * 100 : 0);

function Usage({ id, title, u }: { id: string; title: string; u: { current: number; total: number } }) {
  return (
    <section class="card" aria-labelledby={`h-${id}`}>
      <h2 id={`h-${id}`}>{title}</h2>
      <div class="big">{percent(pct(u))}</div>
      <div class="muted">{t('usedOf', { used: bytes(u.current), total: bytes(u.total) })}</div>
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
      <h2 id="h-core-metrics">{t('coreMetrics')}</h2>
      {m.enabled && m.values ? (
        <dl class="facts">
          <dt>{t('allocated')}</dt>
          <dd>{bytes(m.values.coreAlloc ?? 0)}</dd>
          <dt>{t('fromSystem')}</dt>
          <dd>{bytes(m.values.coreSys ?? 0)}</dd>
          <dt>{t('heapObjects')}</dt>
          <dd>{num(m.values.coreHeapObjects ?? 0)}</dd>
          <dt>{t('gcRuns')}</dt>
          <dd>{num(m.values.coreNumGC ?? 0)}</dd>
        </dl>
      ) : (
        <p class="muted">{m.reason ? t('notAvailableBecause', { reason: m.reason }) : t('noMetricsSection')}</p>
      )}
      {obs.length > 0 && (
        <>
          <h3>{t('observatory')}</h3>
          <ul class="plain">
            {obs.map((o) => (
              <li key={o.tag}>
                <span class={`dot ${o.alive ? 'on' : ''}`} aria-hidden="true" />
                {o.alive ? t('delayMs', { tag: o.tag, n: o.delay }) : t('outboundDown', { tag: o.tag })}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const STATES = ['running', 'stopped', 'error', 'unknown'] as const;
const stateName = (state: string) =>
  (STATES as readonly string[]).includes(state) ? t(`state_${state as (typeof STATES)[number]}`) : state;

export function Overview() {
  const [s, setS] = useState<StatusSnapshot | null>(null);
  const [core, setCore] = useState<{ state: string; error?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [Charts, setCharts] = useState<ComponentType | null>(null);
  useEffect(() => {
    // uPlot only loads on the overview.
    import('./history').then(
      (m) => setCharts(() => m.History),
      (e) => announce(t('chartsFailed', { msg: e.message }), true),
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
      announce(what === 'stop' ? t('coreStopped') : t('coreRestarted'));
    } catch (err) {
      announce(err instanceof Error ? err.message : String(err), true);
    } finally {
      setBusy(false);
    }
  };

  const state = core?.state ?? s?.core.state ?? 'unknown';
  return (
    <>
      <h1>{t('overview')}</h1>
      <section class="card" style={{ marginBottom: '16px' }} aria-labelledby="h-core">
        <div class="row">
          <h2 id="h-core" class="grow" style={{ margin: 0 }}>
            {t('core')} {s?.core.version ? <span class="muted">v{s.core.version.replace(/^v/, '')}</span> : null}
          </h2>
          <button type="button" class="danger" disabled={busy} onClick={() => act('stop')}>
            {t('stopCore')}
          </button>
          <button type="button" disabled={busy} onClick={() => act('restart')}>
            {t('restartCore')}
          </button>
        </div>
        <p role="status" aria-label={t('coreState')} class={`state-${state}`} style={{ margin: '8px 0 0' }}>
          {stateName(state)}
          {core?.error ? ` — ${core.error}` : ''}
        </p>
      </section>
      {s ? (
        <div class="cards">
          <section class="card" aria-labelledby="h-CPU">
            <h2 id="h-CPU">{t('cpu')}</h2>
            <div class="big">{percent(s.cpu)}</div>
            <div class="muted">
              {t('load', { a: num(s.load.load1, 2), b: num(s.load.load5, 2), c: num(s.load.load15, 2) })}
            </div>
            <div class="bar" aria-hidden="true">
              <span style={{ width: `${Math.min(100, s.cpu)}%` }} />
            </div>
          </section>
          <Usage id="Memory" title={t('memory')} u={s.mem} />
          <Usage id="Swap" title={t('swap')} u={s.swap} />
          <Usage id="Disk" title={t('disk')} u={s.disk} />
          <section class="card" aria-labelledby="h-Network">
            <h2 id="h-Network">{t('network')}</h2>
            <div class="big">↑ {t('perSecond', { v: bytes(s.netIO.up) })}</div>
            <div class="big">↓ {t('perSecond', { v: bytes(s.netIO.down) })}</div>
            <div class="muted">
              {t('netTotal', { up: bytes(s.netTraffic?.sent ?? 0), down: bytes(s.netTraffic?.recv ?? 0) })}
            </div>
            <div class="muted">{t('sockets', { tcp: s.tcpCount, udp: s.udpCount ?? 0 })}</div>
          </section>
          <section class="card" aria-labelledby="h-Panel">
            <h2 id="h-Panel">{t('panel')}</h2>
            <div>{s.panelVersion}</div>
            <div class="muted">{t('panelUptime', { d: duration(s.panelUptime ?? 0) })}</div>
            <div class="muted">{t('systemUptime', { d: duration(s.uptime ?? 0) })}</div>
          </section>
          <CoreMetrics />
        </div>
      ) : (
        <p class="muted">{t('loading')}</p>
      )}
      <Backup />
      {Charts && <Charts />}
    </>
  );
}
