// Refetch discipline for live pages: at most one request in flight and one queued per burst of `invalidate`
// messages; while the tab is hidden nothing is fetched, one refetch follows when it becomes visible.
import { useEffect, useRef } from 'preact/hooks';

export function createRefetcher(load: () => Promise<unknown>) {
  let running = false;
  let queued = false;
  let stale = false;
  const run = async (): Promise<void> => {
    if (document.hidden) { stale = true; return; }
    if (running) { queued = true; return; }
    running = true;
    try { await load(); } finally {
      running = false;
      if (queued) { queued = false; void run(); }
    }
  };
  const onVisible = () => { if (!document.hidden && stale) { stale = false; void run(); } };
  document.addEventListener('visibilitychange', onVisible);
  return { run, dispose: () => document.removeEventListener('visibilitychange', onVisible) };
}

export function useRefetch(load: () => Promise<unknown>): () => void {
  const loadRef = useRef(load);
  loadRef.current = load;
  const r = useRef<ReturnType<typeof createRefetcher> | null>(null);
  if (!r.current) r.current = createRefetcher(() => loadRef.current());
  useEffect(() => () => r.current?.dispose(), []);
  return r.current.run;
}
