// The ARIA tabs pattern for every page with sections: arrow keys (mirrored right to left), Home and End move and
// activate, only the chosen tab is in the Tab order; optionally the choice lives in the URL (`?tab=`), so a reload
// or a bookmark opens it.
import { useState } from 'preact/hooks';

/** Ids of a tab and its panel: `${prefix}-tab-${id}` labels `${prefix}-panel-${id}`. */
export const tabId = (prefix: string, id: string) => `${prefix}-tab-${id}`;
export const panelId = (prefix: string, id: string) => `${prefix}-panel-${id}`;

export function TabList<T extends string>(props: {
  label: string;
  prefix: string;
  ids: readonly T[];
  current: T;
  name: (id: T) => string;
  onChoose: (id: T) => void;
}) {
  const { ids, current, prefix } = props;
  const onKey = (e: KeyboardEvent) => {
    const i = ids.indexOf(current);
    const forward = document.documentElement.dir === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
    const back = forward === 'ArrowLeft' ? 'ArrowRight' : 'ArrowLeft';
    const to: Record<string, number> = { [forward]: i + 1, [back]: i - 1, Home: 0, End: ids.length - 1 };
    if (!(e.key in to)) return;
    e.preventDefault();
    const next = ids[(to[e.key]! + ids.length) % ids.length]!;
    props.onChoose(next);
    document.getElementById(tabId(prefix, next))?.focus();
  };
  return (
    <div role="tablist" aria-label={props.label} class="tabs" onKeyDown={onKey}>
      {ids.map((id) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={tabId(prefix, id)}
          aria-selected={id === current}
          aria-controls={panelId(prefix, id)}
          tabIndex={id === current ? 0 : -1}
          onClick={() => props.onChoose(id)}
        >
          {props.name(id)}
        </button>
      ))}
    </div>
  );
}

/** The chosen tab kept in the URL's `?tab=` (the first id is the default and leaves the parameter out). */
export function useUrlTab<T extends string>(ids: readonly T[]): [T, (id: T) => void] {
  const [tab, setTab] = useState<T>(() => {
    const q = new URLSearchParams(location.search).get('tab');
    return ids.find((id) => id === q) ?? ids[0]!;
  });
  const choose = (id: T) => {
    setTab(id);
    const q = new URLSearchParams(location.search);
    if (id === ids[0]) q.delete('tab');
    else q.set('tab', id);
    const s = q.toString();
    history.replaceState(history.state, '', `${location.pathname}${s ? `?${s}` : ''}`);
  };
  return [tab, choose];
}
