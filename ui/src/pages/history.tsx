// History charts of the overview (uPlot on canvas): every metric of /server/history/:metric/:bucket, grouped
// into five charts, with a bucket picker. Loaded on demand, so the clients page never downloads uPlot.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api } from '../api';
import { bytes, clock, dateTime, num, percent } from '../i18n';
import { t } from './overview.i18n';

const BUCKETS = [2, 30, 60, 120, 180, 300];
const bucketName = (b: number) => (b < 60 ? t('seconds', { n: b }) : t('minutes', { n: b / 60 }));
type Metric = 'cpu' | 'mem' | 'netUp' | 'netDown' | 'online' | 'load1' | 'load5' | 'load15';
/** Titles and labels are read when the page renders, so they follow the language. */
const charts = (): { id: string; title: string; metrics: Metric[]; labels: string[]; fmt: (v: number) => string }[] => [
  { id: 'cpu', title: t('cpuHistory'), metrics: ['cpu'], labels: [t('cpuPct')], fmt: (v) => percent(v) },
  { id: 'memory', title: t('memHistory'), metrics: ['mem'], labels: [t('memPct')], fmt: (v) => percent(v) },
  {
    id: 'network',
    title: t('netHistory'),
    metrics: ['netUp', 'netDown'],
    labels: [t('up'), t('down')],
    fmt: (v) => t('perSecond', { v: bytes(v) }),
  },
  {
    id: 'load',
    title: t('loadHistory'),
    metrics: ['load1', 'load5', 'load15'],
    labels: [1, 5, 15].map((n) => t('minutes', { n })),
    fmt: (v) => num(v, 2),
  },
  { id: 'online', title: t('onlineHistory'), metrics: ['online'], labels: [t('online')], fmt: (v) => num(v) },
];

function Chart(props: {
  id: string;
  title: string;
  labels: string[];
  data: uPlot.AlignedData;
  fmt: (v: number) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = box.current!;
    const css = getComputedStyle(document.documentElement);
    const colors = [css.getPropertyValue('--accent').trim() || '#2456d6', '#d97706', '#16a34a'];
    const axis = {
      stroke: css.getPropertyValue('--muted').trim(),
      grid: { stroke: css.getPropertyValue('--border').trim(), width: 1 },
      ticks: { show: false },
    };
    plot.current = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: 160,
        series: [
          // Time in the language's calendar and digits (uPlot's own labels are English and Gregorian).
          { label: t('time'), value: (_u: uPlot, v: number | null) => (v == null ? '—' : dateTime(v * 1000)) },
          ...props.labels.map((label, i) => ({
            label,
            stroke: colors[i % colors.length],
            width: 1.5,
            value: (_u: uPlot, v: number | null) => (v == null ? '—' : props.fmt(v)),
          })),
        ],
        axes: [
          { ...axis, values: (_u: uPlot, vals: number[]) => vals.map((v) => clock(v * 1000)) },
          { ...axis, size: 70, values: (_u: uPlot, vals: number[]) => vals.map((v) => props.fmt(v)) },
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      },
      props.data,
      el,
    );
    fitX(plot.current, props.data);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: 160 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [props.labels.join()]);
  useEffect(() => {
    if (plot.current) {
      plot.current.setData(props.data);
      fitX(plot.current, props.data);
    }
  }, [props.data]);
  return (
    // Ids come from fixed keys: a translated title may have no Latin letters at all.
    <section class="card chart" aria-labelledby={`chart-${props.id}`}>
      <h2 id={`chart-${props.id}`}>{props.title}</h2>
      <div ref={box} role="img" aria-label={t('chartLabel', { title: props.title, n: props.data[0].length })} />
    </section>
  );
}

/** A young history (a few points) still spans five minutes, not years. */
function fitX(u: uPlot, data: uPlot.AlignedData): void {
  const ts = data[0];
  if (ts.length === 0) return;
  const last = ts[ts.length - 1]!;
  u.setScale('x', { min: Math.min(ts[0]!, last - 300), max: last });
}

/** Aligns several {t, v} series on the first one's times (they come from the same sampler). */
function align(series: { t: number; v: number }[][]): uPlot.AlignedData {
  const ts = series[0]?.map((p) => p.t) ?? [];
  return [
    ts,
    ...series.map((s) => {
      const m = new Map(s.map((p) => [p.t, p.v]));
      return ts.map((t) => m.get(t) ?? null);
    }),
  ] as uPlot.AlignedData;
}

export function History() {
  const [bucket, setBucket] = useState(30);
  const [data, setData] = useState<Record<string, uPlot.AlignedData> | null>(null);
  const [error, setError] = useState('');
  const chartList = charts();
  useEffect(() => {
    let live = true;
    Promise.all(
      chartList.map(
        async (c) => [c.id, align(await Promise.all(c.metrics.map((m) => api.history(m, bucket))))] as const,
      ),
    ).then(
      (rows) => {
        if (live) {
          setData(Object.fromEntries(rows));
          setError('');
        }
      },
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [bucket]);
  return (
    <section aria-labelledby="h-history" style={{ marginTop: '8px' }}>
      <div class="row" style={{ marginBottom: '8px' }}>
        <h2 id="h-history" class="grow" style={{ margin: 0 }}>
          {t('history')}
        </h2>
        <label class="inline">
          {t('bucket')}
          <select
            style={{ width: 'auto' }}
            value={String(bucket)}
            onChange={(e) => setBucket(Number((e.target as HTMLSelectElement).value))}
          >
            {BUCKETS.map((b) => (
              <option key={b} value={String(b)}>
                {bucketName(b)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && (
        <div role="alert" class="alert">
          {error}
        </div>
      )}
      <div class="charts">
        {data &&
          chartList.map((c) => (
            <Chart key={c.id} id={c.id} title={c.title} labels={c.labels} data={data[c.id]!} fmt={c.fmt} />
          ))}
      </div>
    </section>
  );
}
