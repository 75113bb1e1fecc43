// Refetch discipline for live pages: `run` loads now (at most one request in flight, one queued); `soon` is for
// `invalidate` messages: it waits for a quiet moment (bursts of messages become one refetch, at most one per
// MAX_WAIT_MS while a burst goes on). While the tab is hidden nothing is fetched; one refetch follows when it
// becomes visible again.
import { useEffect, useRef } from 'preact/hooks';

const QUIET_MS = 300;
const MAX_WAIT_MS = 2000;

export interface Refetcher {
  run(): void;
  soon(): void;
  dispose(): void;
}

export function createRefetcher(load: () => Promise<unknown>): Refetcher {
  let running = false;
  let queued = false;
  let stale = false;
  let timer = 0;
  let firstAt = 0;
  const run = async (): Promise<void> => {
    clearTimeout(timer);
    timer = 0;
    firstAt = 0;
    if (document.hidden) {
      stale = true;
      return;
    }
    if (running) {
      queued = true;
      return;
    }
    running = true;
    try {
      await load();
    } finally {
      running = false;
      if (queued) {
        queued = false;
        void run();
      }
    }
  };
  const soon = () => {
    if (document.hidden) {
      stale = true;
      return;
    }
    const now = Date.now();
    if (!firstAt) firstAt = now;
    clearTimeout(timer);
    timer = window.setTimeout(() => void run(), Math.max(0, Math.min(QUIET_MS, firstAt + MAX_WAIT_MS - now)));
  };
  const onVisible = () => {
    if (!document.hidden && stale) {
      stale = false;
      void run();
    }
  };
  document.addEventListener('visibilitychange', onVisible);
  return {
    run: () => void run(),
    soon,
    dispose: () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    },
  };
}

export function useRefetch(load: () => Promise<unknown>): Refetcher {
  const loadRef = useRef(load);
  loadRef.current = load;
  const r = useRef<Refetcher | null>(null);
  if (!r.current) r.current = createRefetcher(() => loadRef.current());
  useEffect(() => () => r.current?.dispose(), []);
  return r.current;
}
