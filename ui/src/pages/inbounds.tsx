// Inbounds: the list with an enable switch per row; add, edit and clone (inbound-form.tsx), export and import as
// JSON, reset traffic, delete; an inbound's clients open on the clients page, paged by the server (an inbound of
// 20,000 clients is never rendered whole). Refetches on `invalidate` for inbounds.
import { useEffect, useState } from 'preact/hooks';
import { api, type InboundRow } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { Dialog } from '../common';
import { bytes, date, num } from '../i18n';
import { navigate } from '../app-nav';
import { base } from '../api';
import { InboundForm, type FormMode } from './inbound-form';
import { ExportInbound, ImportInbound } from './inbound-json';
import { useRefetch } from '../refetch';

export function Inbounds() {
  const [rows, setRows] = useState<InboundRow[] | null>(null);
  const [form, setForm] = useState<FormMode | null>(null);
  const [exporting, setExporting] = useState<InboundRow | null>(null);
  const [importing, setImporting] = useState(false);
  const [deleting, setDeleting] = useState<InboundRow | null>(null);
  const live = useRefetch(() => api.inbounds().then(setRows, (e) => announce(e.message, true)));

  useEffect(() => {
    live.run();
    const off = onLive((m) => {
      if (m.type === 'invalidate' && m.resource === 'inbounds') live.soon();
    });
    const offRe = onReconnect(live.run);
    return () => {
      off();
      offRe();
    };
  }, []);

  const toggle = async (row: InboundRow, enable: boolean) => {
    try {
      await api.setInboundEnable(row.id, enable);
      announce(`${row.remark || row.tag}: ${enable ? 'enabled' : 'disabled'}`);
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

  return (
    <>
      <div class="row" style={{ marginBottom: '12px' }}>
        <h1 class="grow" style={{ margin: 0 }}>
          Inbounds
        </h1>
        <button type="button" onClick={() => setImporting(true)}>
          Import inbound
        </button>
        <button type="button" class="primary" onClick={() => setForm({ kind: 'add' })}>
          Add inbound
        </button>
      </div>
      {rows === null ? (
        <p class="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p class="muted">No inbounds yet.</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>Remark</th>
              <th>Protocol</th>
              <th>Port</th>
              <th>Clients</th>
              <th>Traffic</th>
              <th>Expiry</th>
              <th>Enabled</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td data-label="Remark">{r.remark || <span class="muted">{r.tag}</span>}</td>
                <td data-label="Protocol">
                  {r.protocol}
                  {r.streamSettings?.security && r.streamSettings.security !== 'none'
                    ? ` · ${r.streamSettings.security}`
                    : ''}
                </td>
                <td data-label="Port">{r.port}</td>
                <td data-label="Clients">
                  <a
                    href={`${base}panel/clients?inbound=${r.id}`}
                    aria-label={`Clients of ${label(r)}`}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(`${base}panel/clients?inbound=${r.id}`);
                    }}
                  >
                    {num(r.settings?.clients?.length ?? 0)}
                  </a>
                </td>
                <td data-label="Traffic">
                  ↑ {bytes(r.up)} ↓ {bytes(r.down)}
                  {r.total ? ` / ${bytes(r.total)}` : ''}
                </td>
                <td data-label="Expiry">{r.expiryTime ? date(r.expiryTime) : '—'}</td>
                <td data-label="Enabled">
                  <input
                    type="checkbox"
                    role="switch"
                    class="switch"
                    aria-label="Enabled"
                    checked={r.enable}
                    onChange={(e) => toggle(r, (e.target as HTMLInputElement).checked)}
                  />
                </td>
                <td>
                  <span class="row" style={{ flexWrap: 'wrap' }}>
                    <button
                      type="button"
                      aria-label={`Edit ${label(r)}`}
                      onClick={() => setForm({ kind: 'edit', row: r })}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`Clone ${label(r)}`}
                      onClick={() => setForm({ kind: 'clone', row: r })}
                    >
                      Clone
                    </button>
                    <button type="button" aria-label={`Export ${label(r)}`} onClick={() => setExporting(r)}>
                      Export
                    </button>
                    <button
                      type="button"
                      aria-label={`Reset traffic of ${label(r)}`}
                      onClick={() => run(() => api.resetInboundTraffic(r.id), `Traffic of ${label(r)} reset`)}
                    >
                      Reset
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete ${label(r)}`}
                      onClick={() => setDeleting(r)}
                    >
                      Delete
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Dialog title="Delete inbound" open={deleting !== null} onClose={() => setDeleting(null)}>
        <p>
          Delete the inbound {deleting ? label(deleting) : ''} (port {deleting?.port})? This cannot be undone.
        </p>
        <div class="actions">
          <button type="button" onClick={() => setDeleting(null)}>
            Cancel
          </button>
          <button
            type="button"
            class="primary danger"
            onClick={() => {
              const r = deleting!;
              setDeleting(null);
              void run(() => api.deleteInbound(r.id), `Inbound ${label(r)} deleted`);
            }}
          >
            Delete
          </button>
        </div>
      </Dialog>
      <InboundForm
        mode={form}
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
