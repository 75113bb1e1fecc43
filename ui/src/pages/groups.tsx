// Groups: the labels with their client counts; create, rename, delete (clients keep existing, their label is
// cleared), and a link to the clients page filtered by the group.
import { useEffect, useState } from 'preact/hooks';
import { api, base } from '../api';
import { onLive, onReconnect } from '../live';
import { announce } from '../announce';
import { Dialog } from '../common';
import { navigate } from '../app-nav';
import { useRefetch } from '../refetch';

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
          Groups
        </h1>
        <button type="button" class="primary" onClick={() => open({ kind: 'create' })}>
          Create group
        </button>
      </div>
      {groups === null ? (
        <p class="muted">Loading…</p>
      ) : groups.length === 0 ? (
        <p class="muted">No groups yet.</p>
      ) : (
        <table class="responsive">
          <thead>
            <tr>
              <th>Group</th>
              <th>Clients</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr key={g.name}>
                <td data-label="Group">
                  <a
                    href={href(g)}
                    aria-label={`Clients of ${g.name}`}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(href(g));
                    }}
                  >
                    {g.name}
                  </a>
                </td>
                <td data-label="Clients">{g.clientCount.toLocaleString('en')}</td>
                <td>
                  <span class="row" style={{ flexWrap: 'nowrap' }}>
                    <button
                      type="button"
                      aria-label={`Rename ${g.name}`}
                      onClick={() => open({ kind: 'rename', group: g })}
                    >
                      Rename
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete ${g.name}`}
                      onClick={() => open({ kind: 'delete', group: g })}
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
      <Dialog title="Create group" open={dialog?.kind === 'create'} onClose={() => setDialog(null)}>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            const name = String(new FormData(e.target as HTMLFormElement).get('name') ?? '').trim();
            void act(() => api.createGroup(name), `Group ${name} created`);
          }}
        >
          <label>
            Name
            <input name="name" type="text" required />
          </label>
          <div role="alert" class="alert">
            {error}
          </div>
          <div class="actions">
            <button type="button" onClick={() => setDialog(null)}>
              Cancel
            </button>
            <button type="submit" class="primary">
              Save
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog title="Rename group" open={dialog?.kind === 'rename'} onClose={() => setDialog(null)}>
        {dialog?.kind === 'rename' && (
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              const name = String(new FormData(e.target as HTMLFormElement).get('name') ?? '').trim();
              void act(() => api.renameGroup(dialog.group.name, name), `Group ${dialog.group.name} renamed to ${name}`);
            }}
          >
            <label>
              New name
              <input name="name" type="text" required defaultValue={dialog.group.name} />
            </label>
            <div role="alert" class="alert">
              {error}
            </div>
            <div class="actions">
              <button type="button" onClick={() => setDialog(null)}>
                Cancel
              </button>
              <button type="submit" class="primary">
                Save
              </button>
            </div>
          </form>
        )}
      </Dialog>
      <Dialog title="Delete group" open={dialog?.kind === 'delete'} onClose={() => setDialog(null)}>
        {dialog?.kind === 'delete' && (
          <>
            <p>
              Delete the group {dialog.group.name}? Its {dialog.group.clientCount} clients stay; their group label is
              cleared.
            </p>
            <div role="alert" class="alert">
              {error}
            </div>
            <div class="actions">
              <button type="button" onClick={() => setDialog(null)}>
                Cancel
              </button>
              <button
                type="button"
                class="primary danger"
                onClick={() => act(() => api.deleteGroup(dialog.group.name), `Group ${dialog.group.name} deleted`)}
              >
                Delete
              </button>
            </div>
          </>
        )}
      </Dialog>
    </>
  );
}
