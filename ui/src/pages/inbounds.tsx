// Inbounds: the list with an enable switch per row, and the add dialog (protocol, port, remark; transport and
// security; reality with keys from the server's generator). Refetches on `invalidate` for inbounds.
import { useEffect, useState } from 'preact/hooks';
import { api, type InboundRow } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { Dialog } from '../common';
import { bytes } from '../i18n';
import { useRefetch } from '../refetch';

const PROTOCOLS = ['vless', 'vmess', 'trojan', 'shadowsocks', 'hysteria2'] as const;

const randomHex = (n: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, '0')).join('');

export function Inbounds() {
  const [rows, setRows] = useState<InboundRow[] | null>(null);
  const [adding, setAdding] = useState(false);
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
        <button type="button" class="primary" onClick={() => setAdding(true)}>
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
                <td data-label="Clients">{r.settings?.clients?.length ?? 0}</td>
                <td data-label="Traffic">
                  ↑ {bytes(r.up)} ↓ {bytes(r.down)}
                  {r.total ? ` / ${bytes(r.total)}` : ''}
                </td>
                <td data-label="Expiry">{r.expiryTime ? new Date(r.expiryTime).toLocaleDateString() : '—'}</td>
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
                  <span class="row" style={{ flexWrap: 'nowrap' }}>
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
      <AddInbound
        open={adding}
        onClose={() => setAdding(false)}
        onSaved={() => {
          setAdding(false);
          live.run();
        }}
      />
    </>
  );
}

function AddInbound(props: { open: boolean; onClose: () => void; onSaved: () => void }) {
  const [protocol, setProtocol] = useState<string>('vless');
  const [network, setNetwork] = useState('tcp');
  const [security, setSecurity] = useState('none');
  const [keys, setKeys] = useState<{ privateKey: string; publicKey: string } | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [port0, setPort0] = useState(0);

  useEffect(() => {
    if (props.open) {
      setPort0(10000 + Math.floor(Math.random() * 50000));
      setError('');
      setKeys(null);
      setSecurity('none');
      setProtocol('vless');
      setNetwork('tcp');
    }
  }, [props.open]);

  const generate = async () => {
    try {
      setKeys(await api.newX25519());
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  useEffect(() => {
    if (security === 'reality' && !keys) void generate();
  }, [security]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const get = (k: string) => String(f.get(k) ?? '').trim();
    const stream: Record<string, unknown> = { network, security };
    if (security === 'reality') {
      const sni = get('sni') || 'www.example.com';
      stream.realitySettings = {
        show: false,
        dest: get('dest') || `${sni}:443`,
        xver: 0,
        serverNames: [sni],
        privateKey: keys?.privateKey ?? '',
        shortIds: [randomHex(8)],
        settings: { publicKey: keys?.publicKey ?? '', fingerprint: 'chrome', spiderX: '/' },
      };
    } else if (security === 'tls') {
      stream.tlsSettings = {
        serverName: get('sni'),
        certificates: [{ certificateFile: get('cert'), keyFile: get('key') }],
      };
    }
    const settings: Record<string, unknown> =
      protocol === 'vless'
        ? { decryption: 'none' }
        : protocol === 'shadowsocks'
          ? {
              method: '2022-blake3-aes-256-gcm',
              password: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
              network: 'tcp,udp',
            }
          : {};
    setBusy(true);
    setError('');
    try {
      await api.addInbound({
        protocol,
        port: Number(get('port')),
        remark: get('remark'),
        enable: true,
        listen: '',
        settings,
        streamSettings: stream,
        sniffing: { enabled: false },
      });
      announce(`Inbound "${get('remark')}" added`);
      props.onSaved();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const canReality = protocol === 'vless' || protocol === 'trojan';
  return (
    <Dialog title="Add inbound" open={props.open} onClose={props.onClose}>
      <form class="stack" onSubmit={submit}>
        <label>
          Protocol
          <select
            name="protocol"
            value={protocol}
            onChange={(e) => {
              const p = (e.target as HTMLSelectElement).value;
              setProtocol(p);
              if (p !== 'vless' && p !== 'trojan' && security === 'reality') setSecurity('none');
            }}
          >
            {PROTOCOLS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <div class="row">
          <label class="grow">
            Port
            <input name="port" type="number" min={1} max={65535} required defaultValue={port0 ? String(port0) : ''} />
          </label>
          <label class="grow">
            Remark
            <input name="remark" type="text" />
          </label>
        </div>
        {protocol !== 'hysteria2' && (
          <div class="row">
            <label class="grow">
              Transport
              <select value={network} onChange={(e) => setNetwork((e.target as HTMLSelectElement).value)}>
                {['tcp', 'ws', 'grpc', 'httpupgrade', 'xhttp'].map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <label class="grow">
              Security
              <select value={security} onChange={(e) => setSecurity((e.target as HTMLSelectElement).value)}>
                <option value="none">none</option>
                <option value="tls">tls</option>
                {canReality && <option value="reality">reality</option>}
              </select>
            </label>
          </div>
        )}
        {security === 'tls' && (
          <>
            <label>
              Server name (SNI)
              <input name="sni" type="text" />
            </label>
            <label>
              Certificate file
              <input name="cert" type="text" />
            </label>
            <label>
              Key file
              <input name="key" type="text" />
            </label>
          </>
        )}
        {security === 'reality' && (
          <>
            <div class="row">
              <label class="grow">
                Server name (SNI)
                <input name="sni" type="text" defaultValue="www.example.com" />
              </label>
              <label class="grow">
                Target
                <input name="dest" type="text" placeholder="www.example.com:443" />
              </label>
            </div>
            <label>
              Public key
              <input readOnly value={keys?.publicKey ?? ''} />
            </label>
            <label>
              Private key
              <input readOnly value={keys?.privateKey ?? ''} />
            </label>
            <div>
              <button type="button" onClick={generate}>
                Generate keys
              </button>
            </div>
          </>
        )}
        <div role="alert" class="alert">
          {error}
        </div>
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
