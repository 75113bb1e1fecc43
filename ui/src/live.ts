// The push channel (/ws): one socket per page, reconnecting with backoff after a drop (a panel restart), and
// listeners by message type. Nothing here polls.
import { base } from './api';

export type LiveMessage =
  | { type: 'status'; data: import('./api').StatusSnapshot }
  | { type: 'coreState'; data: string; error?: string }
  | { type: 'notification'; title: string; body: string; severity: string }
  | { type: 'invalidate'; resource: string }
  | { type: 'traffic'; data: unknown }
  | { type: 'client_stats'; data: unknown };

type Listener = (m: LiveMessage) => void;
const listeners = new Set<Listener>();
const openListeners = new Set<() => void>();
let socket: WebSocket | null = null;
let retry = 0;

export function onLive(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Called after every (re)connection: pages catch up on what they missed while disconnected. */
export function onReconnect(fn: () => void): () => void {
  openListeners.add(fn);
  return () => openListeners.delete(fn);
}

export function connectLive(): void {
  if (socket) return;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${base}ws`;
  const ws = new WebSocket(url);
  socket = ws;
  let opened = false;
  ws.onopen = () => {
    if (retry > 0) for (const fn of openListeners) fn();
    opened = true;
    retry = 0;
  };
  ws.onmessage = (e) => {
    let m: LiveMessage;
    try {
      m = JSON.parse(String(e.data));
    } catch {
      return;
    }
    for (const fn of listeners) fn(m);
  };
  ws.onclose = () => {
    socket = null;
    retry = opened ? 1 : retry + 1;
    setTimeout(connectLive, Math.min(500 * 2 ** (retry - 1), 10_000));
  };
}
