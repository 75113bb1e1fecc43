// Clients: the server-paged list (search, status filter, group, sort, page and page size live in the URL), the
// summary counts as filter chips, add client, links with QR codes, selection and bulk actions. Rows are only
// ever one page (≤ 200), whatever the total; `invalidate` refetches the page once per burst.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { api, base, call, type BulkSkip, type ClientPage, type ClientListRow, type InboundOption } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { Dialog } from '../common';
import { bytes, dateTime, num, relative } from '../i18n';
import { t } from './clients.i18n';
import { navigate, useLocation } from '../app-nav';
import { useRefetch } from '../refetch';
import { EditClient } from './client-edit';
import { applyClientStats, applyOnlines } from '../live-rows';

const PAGE_SIZES = [25, 50, 100, 200];
const FILTERS = [
  ['', 'f_all'],
  ['online', 'f_online'],
  ['depleted', 'f_depleted'],
  ['expiring', 'f_expiring'],
  ['deactive', 'f_disabled'],
] as const;
const GB = 1024 ** 3;
const DAY = 86_400_000;

function useQuery() {
  const loc = useLocation();
  return useMemo(() => new URLSearchParams(loc.split('?')[1] ?? ''), [loc]);
}

function setQuery(q: URLSearchParams, patch: Record<string, string>, replace = false) {
  const next = new URLSearchParams(q);
  for (const [k, v] of Object.entries(patch)) v ? next.set(k, v) : next.delete(k);
  if (!('page' in patch)) next.delete('page');
  const s = next.toString();
  navigate(`${base}panel/clients${s ? `?${s}` : ''}`, replace);
}

function status(c: ClientListRow, online: Set<string>): string {
  if (!c.enable) return t('s_disabled');
  if (c.totalGB > 0 && c.traffic.up + c.traffic.down >= c.totalGB) return t('s_depleted');
  if (c.expiryTime > 0 && c.expiryTime <= Date.now()) return t('s_expired');
  return online.has(c.email) ? t('s_online') : t('s_active');
}

export function Clients() {
  const q = useQuery();
  const [data, setData] = useState<ClientPage | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [adding, setAdding] = useState(false);
  const [creatingMany, setCreatingMany] = useState(false);
  const [linksFor, setLinksFor] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [bulk, setBulk] = useState<null | 'adjust' | 'group' | 'reset' | 'delete'>(null);
  const [result, setResult] = useState<{ text: string; skipped: BulkSkip[] } | null>(null);
  const [menu, setMenu] = useState(false);
  const [inboundList, setInboundList] = useState<InboundOption[]>([]);
  useEffect(() => {
    api.inboundOptions().then(setInboundList, () => undefined);
  }, []);
  const search = useRef<HTMLInputElement>(null);
  const qs = q.toString();

  const load = () => {
    const p = new URLSearchParams();
    for (const k of ['page', 'pageSize', 'search', 'filter', 'sort', 'order', 'group', 'inbound']) {
      const v = q.get(k);
      if (v) p.set(k, v);
    }
    return api.clientsPage(p).then(setData, (e) => announce(e.message, true));
  };
  const live = useRefetch(load);

  useEffect(() => {
    live.run();
  }, [qs]);
  useEffect(() => {
    const off = onLive((m) => {
      if (m.type === 'invalidate' && (m.resource === 'clients' || m.resource === 'groups')) live.soon();
      // Traffic and online state update the visible rows in place (no request).
      if (m.type === 'client_stats')
        setData((d) =>
          d
            ? applyClientStats(d, (m.data as { clients: { email: string; up: number; down: number }[] }).clients ?? [])
            : d,
        );
      if (m.type === 'traffic') {
        const on = (m.data as { onlines?: string[] }).onlines;
        if (on) setData((d) => (d ? applyOnlines(d, on) : d));
      }
    });
    const offRe = onReconnect(live.run);
    // "/" focuses the search box.
    const key = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      if (e.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && !document.querySelector('dialog[open]')) {
        e.preventDefault();
        search.current?.focus();
      }
    };
    addEventListener('keydown', key);
    return () => {
      off();
      offRe();
      removeEventListener('keydown', key);
    };
  }, []);

  // Debounced search into the URL.
  const timer = useRef<number>(0);
  const onSearch = (v: string) => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setQuery(q, { search: v }, true), 80);
  };

  const online = useMemo(() => new Set(data?.summary.online ?? []), [data]);
  const pageSize = Number(q.get('pageSize')) || 25;
  const page = data?.page ?? 1;
  const pages = data ? Math.max(1, Math.ceil(data.filtered / data.pageSize)) : 1;
  const sort = q.get('sort') ?? '';
  const order = q.get('order') === 'descend' ? 'descend' : 'ascend';
  const sortBy = (key: string) =>
    setQuery(q, { sort: key, order: sort === key && order === 'ascend' ? 'descend' : 'ascend' });
  const ariaSort = (key: string) => (sort === key ? (order === 'ascend' ? 'ascending' : 'descending') : undefined);
  const items = data?.items ?? [];
  const allOnPage = items.length > 0 && items.every((c) => selected.has(c.email));
  const toggle = (email: string, on: boolean) =>
    setSelected((s) => {
      const n = new Set(s);
      on ? n.add(email) : n.delete(email);
      return n;
    });

  const summaryCount = (f: string): number | undefined => {
    const s = data?.summary;
    if (!s) return undefined;
    return f === ''
      ? s.total
      : f === 'online'
        ? s.onlineCount
        : f === 'depleted'
          ? s.depletedCount
          : f === 'expiring'
            ? s.expiringCount
            : s.deactiveCount;
  };

  const runBulk = async (kind: 'adjust' | 'group' | 'reset' | 'delete', form?: FormData) => {
    const emails = [...selected];
    try {
      let text = '';
      let skipped: BulkSkip[] = [];
      if (kind === 'adjust') {
        const r = await api.bulkAdjust(
          emails,
          Number(form!.get('days') || 0),
          Math.round(Number(form!.get('gb') || 0) * GB),
        );
        text = t('adjusted', { n: r.adjusted, total: emails.length, skipped: r.skipped.length });
        skipped = r.skipped;
      } else if (kind === 'group') {
        const r = await api.bulkAssignGroup(emails, String(form!.get('group') ?? '').trim());
        text = t('assigned', { n: r.affected });
      } else if (kind === 'reset') {
        const r = await api.bulkResetTraffic(emails);
        text = t('resetN', { n: r.affected });
      } else {
        const r = await api.bulkDel(emails);
        text = t('deletedN', { n: r.deleted, total: emails.length, skipped: r.skipped.length });
        skipped = r.skipped;
      }
      setResult({ text, skipped });
      if (kind === 'delete') setSelected(new Set());
    } catch (err) {
      announce(err instanceof Error ? err.message : String(err), true);
    }
    setBulk(null);
    live.run();
  };

  return (
    <>
      <div class="row" style={{ marginBottom: '12px' }}>
        <h1 class="grow" style={{ margin: 0 }}>
          {t('clients')}
        </h1>
        <button type="button" onClick={() => setCreatingMany(true)}>
          {t('bulkCreate')}
        </button>
        <button type="button" class="primary" onClick={() => setAdding(true)}>
          {t('addClient')}
        </button>
      </div>
      <div class="chips" role="group" aria-label={t('statusFilter')}>
        {FILTERS.map(([f, label]) => (
          <button
            key={f}
            type="button"
            class="chip"
            aria-pressed={(q.get('filter') ?? '') === f}
            onClick={() => setQuery(q, { filter: f })}
          >
            {t(label)}
            {summaryCount(f) !== undefined ? ` ${num(summaryCount(f)!)}` : ''}
          </button>
        ))}
      </div>
      <div class="toolbar">
        <input
          ref={search}
          type="search"
          aria-label={t('search')}
          placeholder={t('searchHint')}
          defaultValue={q.get('search') ?? ''}
          onInput={(e) => onSearch((e.target as HTMLInputElement).value)}
        />
        {data && data.groups.length > 0 && (
          <select
            aria-label={t('group')}
            style={{ width: 'auto' }}
            value={q.get('group') ?? ''}
            onChange={(e) => setQuery(q, { group: (e.target as HTMLSelectElement).value })}
          >
            <option value="">{t('allGroups')}</option>
            {data.groups.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        )}
        {(inboundList.length > 1 || q.get('inbound')) && (
          <select
            aria-label={t('inbound')}
            style={{ width: 'auto' }}
            value={q.get('inbound') ?? ''}
            onChange={(e) => setQuery(q, { inbound: (e.target as HTMLSelectElement).value, page: '1' })}
          >
            <option value="">{t('allInbounds')}</option>
            {inboundList.map((ib) => (
              <option key={ib.id} value={String(ib.id)}>
                {ib.remark || `${ib.protocol} ${ib.port}`}
              </option>
            ))}
          </select>
        )}
        <span class="grow" />
        {selected.size > 0 && (
          <div class="menu-wrap">
            <button
              type="button"
              aria-haspopup="menu"
              aria-expanded={menu}
              onClick={() => setMenu(!menu)}
              onKeyDown={(e) => {
                if (e.key === 'ArrowDown') {
                  e.preventDefault();
                  setMenu(true);
                }
              }}
            >
              {t('bulkActionsN', { n: selected.size })}
            </button>
            {menu && (
              <BulkMenu
                onPick={(k) => {
                  setMenu(false);
                  setBulk(k);
                }}
                onClose={() => setMenu(false)}
              />
            )}
          </div>
        )}
      </div>
      {result && (
        <div role="status" aria-label={t('bulkResult')} class="status" style={{ marginBottom: '12px' }}>
          <div class="row">
            <p class="grow" style={{ margin: 0 }}>
              {result.text}
            </p>
            <button type="button" onClick={() => setResult(null)}>
              {t('dismiss')}
            </button>
          </div>
          {result.skipped.length > 0 && (
            <ul class="skipped" tabIndex={0} aria-label={t('skippedClients')}>
              {result.skipped.map((s) => (
                <li key={s.email}>
                  {s.email}: {s.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <table class="responsive">
        <thead>
          <tr>
            <th>
              <input
                type="checkbox"
                aria-label={t('selectAll')}
                checked={allOnPage}
                onChange={(e) => {
                  const on = (e.target as HTMLInputElement).checked;
                  setSelected((s) => {
                    const n = new Set(s);
                    for (const c of items) on ? n.add(c.email) : n.delete(c.email);
                    return n;
                  });
                }}
              />
            </th>
            <th aria-sort={ariaSort('email')}>
              <button type="button" onClick={() => sortBy('email')}>
                {t('email')}
                {sort === 'email' ? (order === 'ascend' ? ' ▲' : ' ▼') : ''}
              </button>
            </th>
            <th>{t('status')}</th>
            <th aria-sort={ariaSort('traffic')}>
              <button type="button" onClick={() => sortBy('traffic')}>
                {t('traffic')}
                {sort === 'traffic' ? (order === 'ascend' ? ' ▲' : ' ▼') : ''}
              </button>
            </th>
            <th aria-sort={ariaSort('expiryTime')}>
              <button type="button" onClick={() => sortBy('expiryTime')}>
                {t('expiry')}
                {sort === 'expiryTime' ? (order === 'ascend' ? ' ▲' : ' ▼') : ''}
              </button>
            </th>
            <th>
              <span class="visually-hidden">{t('actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((c) => {
            const used = c.traffic.up + c.traffic.down;
            const st = status(c, online);
            return (
              <tr key={c.email}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={t('selectEmail', { email: c.email })}
                    checked={selected.has(c.email)}
                    onChange={(e) => toggle(c.email, (e.target as HTMLInputElement).checked)}
                  />
                </td>
                <td data-label={t('email')}>
                  <span>
                    <span class={`dot${online.has(c.email) ? ' on' : ''}`} aria-hidden="true" />
                    {c.email}
                    {c.group ? <span class="muted"> · {c.group}</span> : null}
                  </span>
                </td>
                <td data-label={t('status')}>{st}</td>
                <td data-label={t('traffic')}>
                  <div class="traffic">
                    <div>
                      {bytes(used)}
                      {c.totalGB ? ` / ${bytes(c.totalGB)}` : ' / ∞'}
                    </div>
                    {c.totalGB > 0 && (
                      <div class="bar" aria-hidden="true">
                        <span style={{ width: `${Math.min(100, (used / c.totalGB) * 100)}%` }} />
                      </div>
                    )}
                  </div>
                </td>
                <td data-label={t('expiry')}>
                  {c.expiryTime > 0 ? (
                    <time dateTime={new Date(c.expiryTime).toISOString()} title={dateTime(c.expiryTime)}>
                      {relative(c.expiryTime)}
                    </time>
                  ) : c.expiryTime < 0 ? (
                    t('daysAfterFirstUse', { n: -c.expiryTime / DAY })
                  ) : (
                    t('never')
                  )}
                </td>
                <td>
                  <span class="row" style={{ flexWrap: 'nowrap' }}>
                    <button
                      type="button"
                      aria-label={t('linksFor', { email: c.email })}
                      onClick={() => setLinksFor(c.email)}
                    >
                      {t('links')}
                    </button>
                    <button
                      type="button"
                      aria-label={t('editEmail', { email: c.email })}
                      onClick={() => setEditing(c.email)}
                    >
                      {t('edit')}
                    </button>
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {data && data.items.length === 0 && <p class="muted">{t('noMatch')}</p>}
      <nav class="pager" aria-label={t('pages')}>
        <span class="muted">{data ? t('countOf', { n: data.filtered, total: data.total }) : t('loading')}</span>
        <label class="inline">
          {t('pageSize')}
          <select
            value={String(pageSize)}
            onChange={(e) => setQuery(q, { pageSize: (e.target as HTMLSelectElement).value })}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={String(n)}>
                {num(n)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={page <= 1} onClick={() => setQuery(q, { page: String(page - 1) })}>
          {t('previous')}
        </button>
        <span aria-live="polite">{t('pageOf', { page, pages })}</span>
        <button type="button" disabled={page >= pages} onClick={() => setQuery(q, { page: String(page + 1) })}>
          {t('next')}
        </button>
      </nav>

      <AddClient
        open={adding}
        onClose={() => setAdding(false)}
        onSaved={() => {
          setAdding(false);
          live.run();
        }}
      />
      <AddClient
        many
        open={creatingMany}
        onClose={() => setCreatingMany(false)}
        onSaved={(r) => {
          setCreatingMany(false);
          if (r) setResult(r);
          live.run();
        }}
      />
      <Links email={linksFor} onClose={() => setLinksFor(null)} />
      <EditClient
        email={editing}
        onClose={() => setEditing(null)}
        onChanged={() => {
          setEditing(null);
          live.run();
        }}
      />
      <Dialog title={t('adjust')} open={bulk === 'adjust'} onClose={() => setBulk(null)}>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void runBulk('adjust', new FormData(e.target as HTMLFormElement));
          }}
        >
          <p class="muted" style={{ margin: 0 }}>
            {t('selectedNote', { n: selected.size })}
          </p>
          <div class="row">
            <label class="grow">
              {t('days')}
              <input name="days" type="number" step={1} defaultValue="0" />
            </label>
            <label class="grow">
              {t('gb')}
              <input name="gb" type="number" step="any" defaultValue="0" />
            </label>
          </div>
          <div class="actions">
            <button type="button" onClick={() => setBulk(null)}>
              {t('cancel')}
            </button>
            <button type="submit" class="primary">
              {t('apply')}
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog title={t('assignGroup')} open={bulk === 'group'} onClose={() => setBulk(null)}>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void runBulk('group', new FormData(e.target as HTMLFormElement));
          }}
        >
          <label>
            {t('group')}
            <input name="group" type="text" list="group-names" />
          </label>
          <datalist id="group-names">
            {data?.groups.map((g) => (
              <option key={g} value={g} />
            ))}
          </datalist>
          <div class="actions">
            <button type="button" onClick={() => setBulk(null)}>
              {t('cancel')}
            </button>
            <button type="submit" class="primary">
              {t('apply')}
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog title={t('resetTraffic')} open={bulk === 'reset'} onClose={() => setBulk(null)}>
        <p>{t('resetConfirm', { n: selected.size })}</p>
        <div class="actions">
          <button type="button" onClick={() => setBulk(null)}>
            {t('cancel')}
          </button>
          <button type="button" class="primary" onClick={() => runBulk('reset')}>
            {t('reset')}
          </button>
        </div>
      </Dialog>
      <Dialog title={t('deleteClients')} open={bulk === 'delete'} onClose={() => setBulk(null)}>
        <p>{t('deleteConfirm', { n: selected.size })}</p>
        <div class="actions">
          <button type="button" onClick={() => setBulk(null)}>
            {t('cancel')}
          </button>
          <button type="button" class="primary danger" onClick={() => runBulk('delete')}>
            {t('delete')}
          </button>
        </div>
      </Dialog>
    </>
  );
}

function BulkMenu(props: { onPick: (k: 'adjust' | 'group' | 'reset' | 'delete') => void; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
  }, []);
  const items: ['adjust' | 'group' | 'reset' | 'delete', string][] = [
    ['adjust', t('adjust')],
    ['group', t('assignGroup')],
    ['reset', t('resetTraffic')],
    ['delete', t('delete')],
  ];
  const onKey = (e: KeyboardEvent) => {
    const all = [...ref.current!.querySelectorAll<HTMLElement>('[role=menuitem]')];
    const i = all.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      all[(i + 1) % all.length]?.focus();
    }
    if (e.key === 'ArrowUp') {
      e.preventDefault();
      all[(i - 1 + all.length) % all.length]?.focus();
    }
    if (e.key === 'Escape' || e.key === 'Tab') props.onClose();
  };
  return (
    <div role="menu" ref={ref} aria-label={t('bulkActions')} onKeyDown={onKey}>
      {items.map(([k, label]) => (
        <button key={k} type="button" role="menuitem" tabIndex={-1} onClick={() => props.onPick(k)}>
          {label}
        </button>
      ))}
    </div>
  );
}

/** At most this many clients per bulkCreate request (the API's own limit is higher; this keeps progress visible). */
const BULK_CHUNK = 1000;
const BULK_MAX = 10_000;

/**
 * "Add client", or with `many` "Bulk create": N clients named prefix + number (zero-padded), the same inbounds,
 * limits, group and comment; created in chunks with the progress shown, the result (counts and every skipped
 * email with its reason) handed to the page's bulk result.
 */
function AddClient(props: {
  open: boolean;
  many?: boolean;
  onClose: () => void;
  onSaved: (result?: { text: string; skipped: BulkSkip[] }) => void;
}) {
  const [inbounds, setInbounds] = useState<InboundOption[] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState('');
  useEffect(() => {
    if (!props.open) return;
    setError('');
    setProgress('');
    api.inboundOptions().then(setInbounds, (e) => setError(e.message));
  }, [props.open]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const ids = f.getAll('inbound').map(Number);
    if (ids.length === 0) {
      setError(t('chooseInbound'));
      return;
    }
    const gb = Number(f.get('gb') || 0);
    const days = Number(f.get('days') || 0);
    const fields = {
      enable: true,
      totalGB: Math.round(gb * GB),
      expiryTime: days > 0 ? Date.now() + days * DAY : 0,
      group: String(f.get('group') ?? '').trim(),
      comment: String(f.get('comment') ?? '').trim(),
    };
    setBusy(true);
    setError('');
    try {
      if (!props.many) {
        const email = String(f.get('email')).trim();
        await api.addClient({ email, ...fields }, ids);
        announce(t('clientAdded', { email }));
        props.onSaved();
        return;
      }
      const prefix = String(f.get('prefix') ?? '').trim();
      const count = Number(f.get('count') || 0);
      const first = Number(f.get('first') || 1);
      if (!prefix) throw new Error(t('prefixRequired'));
      if (!Number.isInteger(count) || count < 1 || count > BULK_MAX)
        throw new Error(t('countRange', { max: BULK_MAX }));
      const width = String(first + count - 1).length;
      let created = 0;
      const skipped: BulkSkip[] = [];
      for (let at = 0; at < count; at += BULK_CHUNK) {
        setProgress(t('progress', { done: at, total: count }));
        const items = [];
        for (let i = at; i < Math.min(count, at + BULK_CHUNK); i++) {
          items.push({
            client: { email: `${prefix}${String(first + i).padStart(width, '0')}`, ...fields },
            inboundIds: ids,
          });
        }
        const r = await call<{ created: number; skipped: BulkSkip[] }>('POST', 'panel/api/clients/bulkCreate', items);
        created += r.created;
        skipped.push(...r.skipped);
      }
      const text = t('createdSkipped', { created, skipped: skipped.length });
      announce(text);
      props.onSaved({ text, skipped });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
      setProgress('');
    }
  };

  return (
    <Dialog title={props.many ? t('bulkCreate') : t('addClient')} open={props.open} onClose={props.onClose}>
      <form class="stack" onSubmit={submit}>
        {props.many ? (
          <div class="row">
            <label class="grow">
              {t('prefix')}
              <input name="prefix" type="text" required autoFocus />
            </label>
            <label class="grow">
              {t('count')}
              <input name="count" type="number" min={1} max={BULK_MAX} step={1} required defaultValue="10" />
            </label>
            <label class="grow">
              {t('firstNumber')}
              <input name="first" type="number" min={0} step={1} defaultValue="1" />
            </label>
          </div>
        ) : (
          <label>
            {t('email')}
            <input name="email" type="text" required autoFocus />
          </label>
        )}
        <fieldset>
          <legend>{t('inbounds')}</legend>
          {inbounds === null ? (
            <span class="muted">{t('loading')}</span>
          ) : inbounds.length === 0 ? (
            <span class="muted">{t('addInboundFirst')}</span>
          ) : (
            inbounds.map((i) => (
              <label class="inline" key={i.id} style={{ marginInlineEnd: '12px' }}>
                <input type="checkbox" name="inbound" value={String(i.id)} />
                {i.remark || `${i.protocol}:${i.port}`}
              </label>
            ))
          )}
        </fieldset>
        <div class="row">
          <label class="grow">
            {t('limitGb')}
            <input name="gb" type="number" min={0} step="any" defaultValue="0" />
          </label>
          <label class="grow">
            {t('expiresDays')}
            <input name="days" type="number" min={0} step={1} defaultValue="0" />
          </label>
        </div>
        <div class="row">
          <label class="grow">
            {t('group')}
            <input name="group" type="text" />
          </label>
          <label class="grow">
            {t('comment')}
            <input name="comment" type="text" />
          </label>
        </div>
        {progress && (
          <p role="status" class="muted">
            {progress}
          </p>
        )}
        <div role="alert" class="alert">
          {error}
        </div>
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            {t('cancel')}
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {props.many ? t('create') : t('save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

const qrSvg = (url: string) => QRCode.toString(url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });

/** The client's subscription URLs (the formats the panel serves), from the settings' URIs and its subId. */
async function subscriptionUrls(email: string): Promise<{ label: string; qr: string; copy: string; url: string }[]> {
  const [{ client }, s] = await Promise.all([
    api.getClient(email),
    call<Record<string, any>>('POST', 'panel/setting/defaultSettings'),
  ]);
  if (!s.subEnable || !client.subId) return [];
  const join = (uri: string) => `${uri.replace(/\/?$/, '/')}${encodeURIComponent(client.subId)}`;
  const out = [{ label: t('sub'), qr: t('subQr'), copy: t('copySub'), url: join(s.subURI) }];
  if (s.subJsonEnable)
    out.push({ label: t('subJson'), qr: t('subJsonQr'), copy: t('copySubJson'), url: join(s.subJsonURI) });
  if (s.subClashEnable)
    out.push({ label: t('subClash'), qr: t('subClashQr'), copy: t('copySubClash'), url: join(s.subClashURI) });
  return out;
}

function Links(props: { email: string | null; onClose: () => void }) {
  const [links, setLinks] = useState<{ url: string; svg: string }[] | null>(null);
  const [subs, setSubs] = useState<{ label: string; qr: string; copy: string; url: string; svg: string }[]>([]);
  const [ips, setIps] = useState<string[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setLinks(null);
    setSubs([]);
    setIps(null);
    setError('');
    if (!props.email) return;
    const email = props.email;
    api.links(email).then(
      async (urls) => setLinks(await Promise.all(urls.map(async (url) => ({ url, svg: await qrSvg(url) })))),
      (e) => setError(e.message),
    );
    subscriptionUrls(email).then(
      async (list) => setSubs(await Promise.all(list.map(async (x) => ({ ...x, svg: await qrSvg(x.url) })))),
      (e) => setError(e.message),
    );
    call<string[] | null>('POST', `panel/api/clients/ips/${encodeURIComponent(email)}`).then(
      (list) => setIps(list ?? []),
      (e) => setError(e.message),
    );
  }, [props.email]);

  const clearIps = async () => {
    try {
      await call('POST', `panel/api/clients/clearIps/${encodeURIComponent(props.email!)}`);
      setIps([]);
      announce(t('ipCleared', { email: props.email! }));
    } catch (err) {
      announce(err instanceof Error ? err.message : String(err), true);
    }
  };

  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      announce(t('linkCopied'));
    } catch {
      announce(t('copyFailed'), true);
    }
  };

  const title = t('linksFor', { email: props.email ?? '' });
  return (
    <Dialog title={title} open={props.email !== null} onClose={props.onClose} wide>
      {error && (
        <div role="alert" class="alert">
          {error}
        </div>
      )}
      {links === null ? (
        <p class="muted">{t('loading')}</p>
      ) : links.length === 0 ? (
        <p class="muted">{t('noLinks')}</p>
      ) : (
        <ul class="links">
          {links.map((l, i) => (
            <li key={l.url}>
              <div
                class="qr"
                role="img"
                aria-label={t('qrOfLink', { n: i + 1 })}
                data-link={l.url}
                dangerouslySetInnerHTML={{ __html: l.svg }}
              />
              <div>
                <p class="link-text">{l.url}</p>
                <button type="button" onClick={() => copy(l.url)}>
                  {t('copy')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {subs.length > 0 && (
        <>
          <h3>{t('sub')}</h3>
          <ul class="links">
            {subs.map((x) => (
              <li key={x.url}>
                <div
                  class="qr"
                  role="img"
                  aria-label={x.qr}
                  data-link={x.url}
                  dangerouslySetInnerHTML={{ __html: x.svg }}
                />
                <div>
                  <p class="muted">{x.label}</p>
                  <p class="link-text">{x.url}</p>
                  <button type="button" aria-label={x.copy} onClick={() => copy(x.url)}>
                    {t('copy')}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>{t('ipLog')}</h3>
      {ips === null ? (
        <p class="muted">{t('loading')}</p>
      ) : ips.length === 0 ? (
        <p class="muted">{t('noIp')}</p>
      ) : (
        <ul aria-label={t('ipLog')} class="ip-log">
          {ips.map((ip) => (
            <li key={ip}>{ip}</li>
          ))}
        </ul>
      )}
      <div class="actions">
        {ips !== null && ips.length > 0 && (
          <button type="button" onClick={clearIps}>
            {t('clearIpLog')}
          </button>
        )}
        <button type="button" onClick={props.onClose}>
          {t('close')}
        </button>
      </div>
    </Dialog>
  );
}
