// Logs: the panel's own log (level, line count, the systemd journal where there is one) and the core's access
// and error logs (direct / blocked / proxy, keyword). The log is not pushed over the WebSocket, so "Follow"
// reads it again every few seconds, only while the tab is visible; "Download" saves exactly the shown lines.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { announce } from '../announce';
import { num, time } from '../i18n';
import { coreLog, fileStamp, panelLog, saveFile, type CoreLogFilter, type PanelLevel } from './logs.api';
import { t } from './logs.i18n';
import './logs.css';
import { panelId, TabList, tabId, useUrlTab } from '../tabs';

type Tab = 'panel' | 'core';
const TABS: Tab[] = ['panel', 'core'];
const LEVELS: PanelLevel[] = ['debug', 'info', 'warning', 'error'];
const COUNTS = [50, 100, 200, 500, 1000, 5000, 10000];
/** Follow mode reads the log again this often (only while the browser tab is visible). */
export const FOLLOW_MS = 3000;

/** A panel log line (JSON from the panel's logger) as `time LEVEL message key=value…`; other lines unchanged. */
export function readable(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    if (typeof o.msg !== 'string') return line;
    const { time: at, level, msg, ...rest } = o;
    const extra = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    return `${String(at ?? '')} ${String(level ?? '').toUpperCase()} ${msg}${extra ? ` ${extra}` : ''}`.trim();
  } catch {
    return line;
  }
}

const levelClass = (line: string): string => {
  const m = /\b(DEBUG|INFO|WARN(?:ING)?|ERROR)\b|\[(Debug|Info|Warning|Error)\]/.exec(line);
  const w = (m?.[1] ?? m?.[2] ?? '').toLowerCase();
  return w.startsWith('warn') ? 'lv-warn' : w === 'error' ? 'lv-error' : w === 'debug' ? 'lv-debug' : '';
};

export function Logs() {
  const [tab, choose] = useUrlTab(TABS);

  return (
    <>
      <h1>{t('title')}</h1>
      <TabList
        label={t('tabs')}
        prefix="log"
        ids={TABS}
        current={tab}
        name={(k) => t(k === 'panel' ? 'panelTab' : 'coreTab')}
        onChoose={choose}
      />
      <section role="tabpanel" id={panelId('log', tab)} aria-labelledby={tabId('log', tab)} class="card log-card">
        {tab === 'panel' ? <PanelLog key="panel" /> : <CoreLog key="core" />}
      </section>
    </>
  );
}

function PanelLog() {
  const [level, setLevel] = useState<PanelLevel>('info');
  const [count, setCount] = useState(100);
  const [syslog, setSyslog] = useState(false);
  const [note, setNote] = useState('');
  const load = async () => {
    const r = await panelLog(count, level, syslog);
    setNote(syslog ? r.note : '');
    return r.lines.map(readable);
  };
  return (
    <LogView kind="panel" load={load} deps={[level, count, syslog]} note={note} empty={t('emptyPanel')}>
      <label>
        {t('level')}
        <select value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value as PanelLevel)}>
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {t(l)}
            </option>
          ))}
        </select>
      </label>
      <CountPicker value={count} onChange={setCount} />
      <label class="inline" title={t('syslogHint')}>
        <input
          type="checkbox"
          role="switch"
          class="switch"
          checked={syslog}
          aria-describedby="syslog-hint"
          onChange={(e) => setSyslog((e.target as HTMLInputElement).checked)}
        />
        {t('syslog')}
        <span id="syslog-hint" class="visually-hidden">
          {t('syslogHint')}
        </span>
      </label>
    </LogView>
  );
}

function CoreLog() {
  const [count, setCount] = useState(100);
  const [keyword, setKeyword] = useState('');
  const [applied, setApplied] = useState('');
  const [show, setShow] = useState({ showDirect: true, showBlocked: true, showProxy: true });
  // The keyword applies after a short pause in typing (or Enter), not on every key.
  useEffect(() => {
    const id = setTimeout(() => setApplied(keyword.trim()), 400);
    return () => clearTimeout(id);
  }, [keyword]);
  const load = () => coreLog(count, { filter: applied, ...show } satisfies CoreLogFilter);
  const flag = (k: keyof typeof show, label: string) => (
    <label class="inline">
      <input type="checkbox" checked={show[k]} onChange={(e) => setShow({ ...show, [k]: e.currentTarget.checked })} />
      {label}
    </label>
  );
  return (
    <LogView kind="core" load={load} deps={[count, applied, show]} empty={t('emptyCore')}>
      <label>
        {t('keyword')}
        <input
          type="search"
          value={keyword}
          maxLength={200}
          onInput={(e) => setKeyword((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') setApplied(keyword.trim());
          }}
        />
      </label>
      <CountPicker value={count} onChange={setCount} />
      <fieldset class="log-flags">
        <legend>{t('show')}</legend>
        {flag('showDirect', t('direct'))}
        {flag('showBlocked', t('blocked'))}
        {flag('showProxy', t('proxy'))}
      </fieldset>
    </LogView>
  );
}

function CountPicker({ value, onChange }: { value: number; onChange: (n: number) => void }) {
  return (
    <label>
      {t('count')}
      <select value={String(value)} onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value))}>
        {COUNTS.map((n) => (
          <option key={n} value={String(n)}>
            {num(n)}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The shared part of both tabs: loads on every filter change, Refresh, Follow (periodic reads while the tab is
 * visible, scrolled to the end), the line count and Download.
 */
function LogView(props: {
  kind: Tab;
  load: () => Promise<string[]>;
  deps: unknown[];
  note?: string;
  empty: string;
  children: ComponentChildren;
}) {
  const [lines, setLines] = useState<string[] | null>(null);
  const [readAt, setReadAt] = useState(0);
  const [error, setError] = useState('');
  const [follow, setFollow] = useState(false);
  const pre = useRef<HTMLPreElement>(null);
  const loadRef = useRef(props.load);
  loadRef.current = props.load;
  const busy = useRef(false);
  const again = useRef(false);

  const read = async (): Promise<void> => {
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    try {
      const next = await loadRef.current();
      setLines(next);
      setReadAt(Date.now());
      setError('');
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      setError(t('failed', { msg }));
    } finally {
      busy.current = false;
      if (again.current) {
        again.current = false;
        void read();
      }
    }
  };

  useEffect(() => {
    void read();
  }, props.deps);

  useEffect(() => {
    if (!follow) return;
    const tick = () => {
      if (!document.hidden) void read();
    };
    const id = setInterval(tick, FOLLOW_MS);
    document.addEventListener('visibilitychange', tick);
    tick();
    return () => {
      clearInterval(id);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [follow]);

  useEffect(() => {
    if (follow && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [lines, follow]);

  const text = (lines ?? []).join('\n');
  const download = () => {
    const name = `${props.kind}-log_${fileStamp()}.log`;
    saveFile(new Blob([text ? `${text}\n` : ''], { type: 'text/plain;charset=utf-8' }), name);
    announce(t('saved', { name, n: lines?.length ?? 0 }));
  };

  return (
    <div class="stack">
      <div class="log-controls">{props.children}</div>
      <div class="row log-actions">
        <label class="inline" title={t('followHint', { s: FOLLOW_MS / 1000 })}>
          <input
            type="checkbox"
            role="switch"
            class="switch"
            checked={follow}
            aria-describedby={`follow-hint-${props.kind}`}
            onChange={(e) => setFollow((e.target as HTMLInputElement).checked)}
          />
          {t('follow')}
          <span id={`follow-hint-${props.kind}`} class="visually-hidden">
            {t('followHint', { s: FOLLOW_MS / 1000 })}
          </span>
        </label>
        <button type="button" onClick={() => void read()}>
          {t('refresh')}
        </button>
        <button type="button" onClick={download} disabled={!lines}>
          {t('download')}
        </button>
        <span class="grow" />
        <span class="muted">{t('lineCount', { n: lines?.length ?? 0 })}</span>
        {readAt > 0 && <span class="muted">{t('updated', { time: time(readAt) })}</span>}
      </div>
      {props.note && <p class="status">{props.note}</p>}
      <div role="alert" class="alert">
        {error}
      </div>
      {lines !== null && lines.length === 0 && <p class="muted">{props.empty}</p>}
      {lines === null && !error && <p class="muted">{t('loading')}</p>}
      <pre
        ref={pre}
        role="log"
        aria-label={t('lines')}
        aria-live="off"
        tabIndex={0}
        class="log-lines"
        dir="ltr"
        hidden={!lines || lines.length === 0}
      >
        {(lines ?? []).map((l, i) => (
          <span key={i} class={levelClass(l)}>
            {i ? `\n${l}` : l}
          </span>
        ))}
      </pre>
    </div>
  );
}
