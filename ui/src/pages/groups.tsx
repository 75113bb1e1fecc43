// Groups: the labels with their client counts; create, rename, delete (clients keep existing, their label is
// cleared), and a link to the clients page filtered by the group.
import { useEffect, useState } from 'preact/hooks';
import { api, base } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { ConfirmDialog, Dialog } from '../common';
import { navigate } from '../app-nav';
import { useRefetch } from '../refetch';
import { num } from '../i18n';
import { t } from './groups.i18n';

type Group = { name: string; clientCount: number };

export function Groups() {
  const [groups, setGroups] = useState<Group[] | null>(null);
  const [dialog, setDialog] = useState<null | { kind: 'create' } | { kind: 'rename' | 'delete'; group: Group }>(null);
  const [error, setError] = useState('');
  const live = useRefetch(() => api.groups().then(setGroups, (e) => announce(e.message, true)));

  useEffect(() => {
    live.run();
    const off = onLive((m) => {
      if (m.type === 'invalidate' && (m.resource === 'groups' || m.resource === 'clients')) live.soon();
    });
    const offRe = onReconnect(live.run);
    return () => {
      off();
      offRe();
    };
  }, []);

  const act = async (what: () => Promise<unknown>, done: string) => {
    setError('');
    try {
      await what();
      announce(done);
      setDialog(null);
      live.run();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const open = (d: typeof dialog) => {
    setError('');
    setDialog(d);
  };
  const href = (g: Group) => `${base}panel/clients?group=${encodeURIComponent(g.name)}`;

  return (
    <>
      <div class="row" style={{ marginBottom: '12px' }}>
        <h1 class="grow" style={{ margin: 0 }}>
          {t('groups')}
        </h1>
        <button type="button" class="primary" onClick={() => open({ kind: 'create' })}>
          {t('createGroup')}
        </button>
      </div>
      {groups === null ? (
        <p class="muted">{t('loading')}</p>
      ) : groups.length === 0 ? (
        <p class="muted">{t('none')}</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>{t('group')}</th>
              <th>{t('clients')}</th>
              <th>
                <span class="visually-hidden">{t('actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr key={g.name}>
                <td data-label={t('group')}>
                  <a
                    href={href(g)}
                    aria-label={t('clientsOf', { name: g.name })}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(href(g));
                    }}
                  >
                    {g.name}
                  </a>
                </td>
                <td data-label={t('clients')}>{num(g.clientCount)}</td>
                <td>
                  <span class="row" style={{ flexWrap: 'nowrap' }}>
                    <button
                      type="button"
                      aria-label={t('renameOf', { name: g.name })}
                      onClick={() => open({ kind: 'rename', group: g })}
                    >
                      {t('rename')}
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={t('deleteOf', { name: g.name })}
                      onClick={() => open({ kind: 'delete', group: g })}
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
      <Dialog title={t('createGroup')} open={dialog?.kind === 'create'} onClose={() => setDialog(null)}>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            const name = String(new FormData(e.target as HTMLFormElement).get('name') ?? '').trim();
            void act(() => api.createGroup(name), t('created', { name }));
          }}
        >
          <label>
            {t('name')}
            <input name="name" type="text" required />
          </label>
          <div role="alert" class="alert">
            {error}
          </div>
          <div class="actions">
            <button type="button" onClick={() => setDialog(null)}>
              {t('cancel')}
            </button>
            <button type="submit" class="primary">
              {t('save')}
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog title={t('renameGroup')} open={dialog?.kind === 'rename'} onClose={() => setDialog(null)}>
        {dialog?.kind === 'rename' && (
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              const name = String(new FormData(e.target as HTMLFormElement).get('name') ?? '').trim();
              void act(
                () => api.renameGroup(dialog.group.name, name),
                t('renamed', { from: dialog.group.name, to: name }),
              );
            }}
          >
            <label>
              {t('newName')}
              <input name="name" type="text" required defaultValue={dialog.group.name} />
            </label>
            <div role="alert" class="alert">
              {error}
            </div>
            <div class="actions">
              <button type="button" onClick={() => setDialog(null)}>
                {t('cancel')}
              </button>
              <button type="submit" class="primary">
                {t('save')}
              </button>
            </div>
          </form>
        )}
      </Dialog>
      <ConfirmDialog
        title={t('deleteGroup')}
        open={dialog?.kind === 'delete'}
        onClose={() => setDialog(null)}
        action={t('delete')}
        onConfirm={() =>
          dialog?.kind === 'delete' &&
          act(() => api.deleteGroup(dialog.group.name), t('deleted', { name: dialog.group.name }))
        }
        error={error}
      >
        {dialog?.kind === 'delete' && (
          <p>{t('deleteConfirm', { name: dialog.group.name, n: dialog.group.clientCount })}</p>
        )}
      </ConfirmDialog>
    </>
  );
}
