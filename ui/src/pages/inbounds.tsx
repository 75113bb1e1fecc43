// Inbounds: the list with an enable switch per row and the node each inbound runs on; add, edit and clone
// (inbound-form.tsx), export and import as JSON, reset traffic, delete; an inbound's clients open on the clients
// page, paged by the server (an inbound of 20,000 clients is never rendered whole). Refetches on `invalidate` for
// inbounds (and for nodes, whose names the list shows). Strings: inbounds.i18n.ts.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { Dialog } from '../common';
import { bytes, date, num } from '../i18n';
import { navigate } from '../app-nav';
import { base } from '../api';
import { InboundForm, type FormMode } from './inbound-form';
import { ExportInbound, ImportInbound } from './inbound-json';
import { useRefetch } from '../refetch';
import { inboundsApi, type BoundInbound, type NodeBrief } from './inbounds.api';
import { t } from './inbounds.i18n';

type InboundRow = BoundInbound;

export function Inbounds() {
  const [rows, setRows] = useState<InboundRow[] | null>(null);
  const [form, setForm] = useState<FormMode | null>(null);
  const [exporting, setExporting] = useState<InboundRow | null>(null);
  const [importing, setImporting] = useState(false);
  const [deleting, setDeleting] = useState<InboundRow | null>(null);
  const [nodes, setNodes] = useState<NodeBrief[]>([]);
  const live = useRefetch(() => api.inbounds().then(setRows, (e) => announce(e.message, true)));
  // Node names for the list and the form; without them a bound inbound shows "node {id}".
  const liveNodes = useRefetch(() => inboundsApi.nodes().then(setNodes, () => undefined));

  useEffect(() => {
    live.run();
    liveNodes.run();
    const off = onLive((m) => {
      if (m.type === 'invalidate' && m.resource === 'inbounds') live.soon();
      if (m.type === 'invalidate' && m.resource === 'nodes') liveNodes.soon();
    });
    const offRe = onReconnect(() => {
      live.run();
      liveNodes.run();
    });
    return () => {
      off();
      offRe();
    };
  }, []);

  const toggle = async (row: InboundRow, enable: boolean) => {
    try {
      await api.setInboundEnable(row.id, enable);
      announce(t(enable ? 'nowEnabled' : 'nowDisabled', { name: row.remark || row.tag }));
    } catch (err) {
      announce(err instanceof Error ? err.message : String(err), true);
    }
    live.run();
  };

  const run = async (what: () => Promise<unknown>, done: string) => {
    try {
      await what();
      announce(done);
    } catch (err) {
      announce(err instanceof Error ? err.message : String(err), true);
    }
    live.run();
  };
  const label = (r: InboundRow) => r.remark || r.tag;
  const nodeName = (id: number) => nodes.find((n) => n.id === id)?.name ?? t('nodeN', { id });
  const go = (e: Event, url: string) => {
    e.preventDefault();
    navigate(url);
  };

  return (
    <>
      <div class="row" style={{ marginBlockEnd: '12px', flexWrap: 'wrap' }}>
        <h1 class="grow" style={{ margin: 0 }}>
          {t('title')}
        </h1>
        <button type="button" onClick={() => setImporting(true)}>
          {t('importInbound')}
        </button>
        <button type="button" class="primary" onClick={() => setForm({ kind: 'add' })}>
          {t('addInbound')}
        </button>
      </div>
      {rows === null ? (
        <p class="muted">{t('loading')}</p>
      ) : rows.length === 0 ? (
        <p class="muted">{t('empty')}</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>{t('colRemark')}</th>
              <th>{t('colProtocol')}</th>
              <th>{t('colPort')}</th>
              <th>{t('colNode')}</th>
              <th>{t('colClients')}</th>
              <th>{t('colTraffic')}</th>
              <th>{t('colExpiry')}</th>
              <th>{t('colEnabled')}</th>
              <th>
                <span class="visually-hidden">{t('colActions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td data-label={t('colRemark')}>{r.remark || <span class="muted">{r.tag}</span>}</td>
                <td data-label={t('colProtocol')}>
                  {r.protocol}
                  {r.streamSettings?.security && r.streamSettings.security !== 'none'
                    ? ` · ${r.streamSettings.security}`
                    : ''}
                </td>
                <td data-label={t('colPort')}>{r.port}</td>
                <td data-label={t('colNode')}>
                  {r.nodeId ? (
                    <a
                      href={`${base}panel/nodes`}
                      aria-label={t('nodeOf', { name: label(r), node: nodeName(r.nodeId) })}
                      onClick={(e) => go(e, `${base}panel/nodes`)}
                    >
                      <bdi style={{ whiteSpace: 'nowrap' }}>{nodeName(r.nodeId)}</bdi>
                    </a>
                  ) : (
                    <span class="muted">{t('local')}</span>
                  )}
                </td>
                <td data-label={t('colClients')}>
                  <a
                    href={`${base}panel/clients?inbound=${r.id}`}
                    // The name starts with the count it shows (WCAG 2.5.3, label in name).
                    aria-label={t('clientsOf', { name: label(r), n: r.settings?.clients?.length ?? 0 })}
                    onClick={(e) => go(e, `${base}panel/clients?inbound=${r.id}`)}
                  >
                    {num(r.settings?.clients?.length ?? 0)}
                  </a>
                </td>
                <td data-label={t('colTraffic')}>
                  <span>
                    <span style={{ whiteSpace: 'nowrap' }}>↑ {bytes(r.up)}</span>{' '}
                    <span style={{ whiteSpace: 'nowrap' }}>↓ {bytes(r.down)}</span>
                    {r.total ? <span style={{ whiteSpace: 'nowrap' }}> / {bytes(r.total)}</span> : ''}
                  </span>
                </td>
                <td data-label={t('colExpiry')}>{r.expiryTime ? date(r.expiryTime) : '—'}</td>
                <td data-label={t('colEnabled')}>
                  <input
                    type="checkbox"
                    role="switch"
                    class="switch"
                    aria-label={t('colEnabled')}
                    checked={r.enable}
                    onChange={(e) => toggle(r, (e.target as HTMLInputElement).checked)}
                  />
                </td>
                <td>
                  <span class="row" style={{ flexWrap: 'wrap' }}>
                    <button
                      type="button"
                      aria-label={t('editOf', { name: label(r) })}
                      onClick={() => setForm({ kind: 'edit', row: r })}
                    >
                      {t('edit')}
                    </button>
                    <button
                      type="button"
                      aria-label={t('cloneOf', { name: label(r) })}
                      onClick={() => setForm({ kind: 'clone', row: r })}
                    >
                      {t('clone')}
                    </button>
                    <button
                      type="button"
                      aria-label={t('exportOf', { name: label(r) })}
                      onClick={() => setExporting(r)}
                    >
                      {t('export')}
                    </button>
                    <button
                      type="button"
                      aria-label={t('resetOf', { name: label(r) })}
                      onClick={() => run(() => api.resetInboundTraffic(r.id), t('trafficReset', { name: label(r) }))}
                    >
                      {t('reset')}
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={t('deleteOf', { name: label(r) })}
                      onClick={() => setDeleting(r)}
                    >
                      {t('delete')}
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Dialog title={t('deleteTitle')} open={deleting !== null} onClose={() => setDeleting(null)}>
        <p>{deleting ? t('deleteConfirm', { name: label(deleting), port: String(deleting.port) }) : ''}</p>
        <div class="actions">
          <button type="button" onClick={() => setDeleting(null)}>
            {t('cancel')}
          </button>
          <button
            type="button"
            class="primary danger"
            onClick={() => {
              const r = deleting!;
              setDeleting(null);
              void run(() => api.deleteInbound(r.id), t('deleted', { name: label(r) }));
            }}
          >
            {t('delete')}
          </button>
        </div>
      </Dialog>
      <InboundForm
        mode={form}
        nodes={nodes}
        onClose={() => setForm(null)}
        onSaved={() => {
          setForm(null);
          live.run();
        }}
      />
      <ExportInbound row={exporting} onClose={() => setExporting(null)} />
      <ImportInbound
        open={importing}
        onClose={() => setImporting(false)}
        onSaved={() => {
          setImporting(false);
          live.run();
        }}
      />
    </>
  );
}
