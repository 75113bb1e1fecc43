// Edit one client: the simple part (email, enabled, limit, expiry, group, comment) and an advanced part (uuid with
// the server's generator, password, flow, subId, IP limit, delayed start, auto-renew, reverse tag). The update
// replaces the record, so every other stored field is sent back as read. Reset traffic and delete (optionally
// keeping the traffic row) live here too.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, type ClientDetail } from '../api';
import { announce } from '../announce';
import { Dialog } from '../common';
import { bytes } from '../i18n';
import { t } from './client-edit.i18n';

const GB = 1024 ** 3;
const DAY = 86_400_000;
const dateInput = (ms: number) =>
  ms > 0 ? new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 10) : '';

export function EditClient(props: { email: string | null; onClose: () => void; onChanged: () => void }) {
  const [c, setC] = useState<ClientDetail | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const uuidInput = useRef<HTMLInputElement>(null);
  const newUuid = async () => {
    try {
      uuidInput.current!.value = await call<string>('GET', 'panel/api/server/getNewUUID');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  useEffect(() => {
    setC(null);
    setError('');
    setConfirmDelete(false);
    if (props.email)
      api.getClient(props.email).then(
        (r) => setC(r.client),
        (e) => setError(e.message),
      );
  }, [props.email]);

  const act = async (what: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError('');
    try {
      await what();
      announce(done);
      props.onChanged();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    if (!c || !props.email) return;
    const f = new FormData(e.target as HTMLFormElement);
    const get = (k: string) => String(f.get(k) ?? '').trim();
    const expiry = get('expiry');
    // A delayed start is a negative expiryTime: the days count from the client's first use.
    const delayDays = Number(get('delayDays') || 0);
    const reverseTag = get('reverse');
    const body = {
      email: get('email'),
      subId: get('subId'),
      id: get('uuid'),
      password: get('password'),
      auth: c.auth,
      flow: get('flow'),
      security: c.security,
      totalGB: Math.round(Number(get('gb') || 0) * GB),
      expiryTime: delayDays > 0 ? -Math.round(delayDays * DAY) : expiry ? new Date(`${expiry}T23:59:59`).getTime() : 0,
      enable: f.get('enable') === 'on',
      limitIp: Number(get('limitIp') || 0),
      tgId: c.tgId,
      comment: get('comment'),
      group: get('group'),
      reverse: reverseTag ? { tag: reverseTag } : null,
      reset: Number(get('reset') || 0),
    };
    void act(() => api.updateClient(props.email!, body), t('saved', { email: body.email }));
  };

  const title = t('editEmail', { email: props.email ?? '' });
  return (
    <Dialog title={title} open={props.email !== null} onClose={props.onClose}>
      {c === null ? (
        error ? (
          <div role="alert" class="alert">
            {error}
          </div>
        ) : (
          <p class="muted">{t('loading')}</p>
        )
      ) : (
        <form class="stack" onSubmit={submit}>
          <label>
            {t('email')}
            <input name="email" type="text" required defaultValue={c.email} />
          </label>
          <label class="inline">
            <input name="enable" type="checkbox" defaultChecked={c.enable} /> {t('enabled')}
          </label>
          <div class="row">
            <label class="grow">
              {t('limitGb')}
              <input name="gb" type="number" min={0} step="any" defaultValue={String(c.totalGB / GB)} />
            </label>
            <label class="grow">
              {t('expiresOn')}
              <input name="expiry" type="date" defaultValue={dateInput(c.expiryTime)} />
            </label>
          </div>
          {c.expiryTime < 0 && (
            <p class="muted" style={{ margin: 0 }}>
              {t('startsOnFirstUse', { n: -c.expiryTime / DAY })}
            </p>
          )}
          <p class="muted" style={{ margin: 0 }}>
            {t('used', { v: bytes(c.traffic.up + c.traffic.down) })}
          </p>
          <div class="row">
            <label class="grow">
              {t('group')}
              <input name="group" type="text" defaultValue={c.group} />
            </label>
            <label class="grow">
              {t('comment')}
              <input name="comment" type="text" defaultValue={c.comment} />
            </label>
          </div>
          <details>
            <summary>{t('advanced')}</summary>
            <div class="stack" style={{ marginTop: '8px' }}>
              <div class="row">
                <label class="grow">
                  {t('uuid')}
                  <input ref={uuidInput} name="uuid" type="text" defaultValue={c.uuid} />
                </label>
                <button type="button" style={{ alignSelf: 'end' }} onClick={newUuid}>
                  {t('generateUuid')}
                </button>
              </div>
              <label>
                {t('password')}
                <input name="password" type="text" defaultValue={c.password} />
              </label>
              <label>
                {t('flow')}
                <select name="flow">
                  {['', 'xtls-rprx-vision', 'xtls-rprx-vision-udp443'].map((v) => (
                    <option key={v} value={v} selected={c.flow === v}>
                      {v || t('none')}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                {t('subId')}
                <input name="subId" type="text" defaultValue={c.subId} />
              </label>
              <div class="row">
                <label class="grow">
                  {t('ipLimit')}
                  <input name="limitIp" type="number" min={0} step={1} defaultValue={String(c.limitIp)} />
                </label>
                <label class="grow">
                  {t('autoRenew')}
                  <input name="reset" type="number" min={0} step={1} defaultValue={String(c.reset)} />
                </label>
              </div>
              <div class="row">
                <label class="grow">
                  {t('delayDays')}
                  <input
                    name="delayDays"
                    type="number"
                    min={0}
                    step={1}
                    defaultValue={String(c.expiryTime < 0 ? -c.expiryTime / DAY : 0)}
                  />
                </label>
                <label class="grow">
                  {t('reverseTag')}
                  <input name="reverse" type="text" defaultValue={c.reverse?.tag ?? ''} />
                </label>
              </div>
            </div>
          </details>
          <div role="alert" class="alert">
            {error}
          </div>
          {confirmDelete ? (
            <fieldset class="stack">
              <legend>{t('deleteQ', { email: c.email })}</legend>
              <label class="inline">
                <input type="checkbox" id="keep-traffic" /> {t('keepTraffic')}
              </label>
              <div class="row">
                <button type="button" onClick={() => setConfirmDelete(false)}>
                  {t('cancel')}
                </button>
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={() =>
                    act(
                      () =>
                        api.deleteClient(
                          c.email,
                          (document.getElementById('keep-traffic') as HTMLInputElement).checked,
                        ),
                      t('deleted', { email: c.email }),
                    )
                  }
                >
                  {t('deleteClient')}
                </button>
              </div>
            </fieldset>
          ) : (
            <div class="actions" style={{ flexWrap: 'wrap' }}>
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                {t('delete')}
              </button>
              <button
                type="button"
                disabled={busy}
                onClick={() => act(() => api.resetClientTraffic(c.email), t('trafficReset', { email: c.email }))}
              >
                {t('resetTraffic')}
              </button>
              <span class="grow" />
              <button type="button" onClick={props.onClose}>
                {t('cancel')}
              </button>
              <button type="submit" class="primary" disabled={busy}>
                {t('save')}
              </button>
            </div>
          )}
        </form>
      )}
    </Dialog>
  );
}
