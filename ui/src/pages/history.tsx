// History charts of the overview (uPlot on canvas): every metric of /server/history/:metric/:bucket, grouped
// into five charts, with a bucket picker. Loaded on demand, so the clients page never downloads uPlot.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api } from '../api';
import { bytes } from '../i18n';

const BUCKETS: [number, string][] = [
  [2, '2 s'],
  [30, '30 s'],
  [60, '1 min'],
  [120, '2 min'],
  [180, '3 min'],
  [300, '5 min'],
];
type Metric = 'cpu' | 'mem' | 'netUp' | 'netDown' | 'online' | 'load1' | 'load5' | 'load15';
const CHARTS: { title: string; metrics: Metric[]; labels: string[]; fmt: (v: number) => string }[] = [
  { title: 'CPU history', metrics: ['cpu'], labels: ['CPU %'], fmt: (v) => `${v.toFixed(1)}%` },
  { title: 'Memory history', metrics: ['mem'], labels: ['Memory %'], fmt: (v) => `${v.toFixed(1)}%` },
  { title: 'Network history', metrics: ['netUp', 'netDown'], labels: ['Up', 'Down'], fmt: (v) => `${bytes(v)}/s` },
  {
    title: 'Load history',
    metrics: ['load1', 'load5', 'load15'],
    labels: ['1 min', '5 min', '15 min'],
    fmt: (v) => v.toFixed(2),
  },
  { title: 'Online clients history', metrics: ['online'], labels: ['Online'], fmt: (v) => String(Math.round(v)) },
];

function Chart(props: { title: string; labels: string[]; data: uPlot.AlignedData; fmt: (v: number) => string }) {
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
          {},
          ...props.labels.map((label, i) => ({
            label,
            stroke: colors[i % colors.length],
            width: 1.5,
            value: (_u: uPlot, v: number | null) => (v == null ? '—' : props.fmt(v)),
          })),
        ],
        axes: [axis, { ...axis, size: 70, values: (_u: uPlot, vals: number[]) => vals.map((v) => props.fmt(v)) }],
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
    // An id with a space would label the chart by two ids ("h-Network" is the Network card's heading).
    <section class="card chart" aria-labelledby={`chart-${slug(props.title)}`}>
      <h2 id={`chart-${slug(props.title)}`}>{props.title}</h2>
      <div ref={box} role="img" aria-label={`${props.title} chart (${props.data[0].length} points)`} />
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

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');

export function History() {
  const [bucket, setBucket] = useState(30);
  const [data, setData] = useState<Record<string, uPlot.AlignedData> | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    Promise.all(
      CHARTS.map(
        async (c) => [c.title, align(await Promise.all(c.metrics.map((m) => api.history(m, bucket))))] as const,
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
          History
        </h2>
        <label class="inline">
          Bucket
          <select
            style={{ width: 'auto' }}
            value={String(bucket)}
            onChange={(e) => setBucket(Number((e.target as HTMLSelectElement).value))}
          >
            {BUCKETS.map(([b, l]) => (
              <option key={b} value={String(b)}>
                {l}
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
          CHARTS.map((c) => (
            <Chart key={c.title} title={c.title} labels={c.labels} data={data[c.title]!} fmt={c.fmt} />
          ))}
      </div>
    </section>
  );
}
