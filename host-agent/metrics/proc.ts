// Cheap readers of the Linux /proc files (about 0.1 ms each). Each takes the /proc directory so tests can point
// it at fixture files; each returns zeros (never throws) when its file is missing or unreadable.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CpuTimes } from '../../domain/ports/host.js';

async function text(procDir: string, rel: string): Promise<string | null> {
  try {
    return await readFile(join(procDir, rel), 'utf8');
  } catch {
    return null;
  }
}

/**
 * The aggregate `cpu` line of /proc/stat: total = user..steal (guest time is already inside user), idle = idle +
 * iowait.
 */
export async function readCpuTimes(procDir = '/proc'): Promise<CpuTimes | null> {
  const s = await text(procDir, 'stat');
  const line = s?.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return null;
  const f = line
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map((x) => Number(x) || 0);
  if (f.length < 4) return null;
  const total = f.reduce((a, b) => a + b, 0);
  return { idle: (f[3] ?? 0) + (f[4] ?? 0), total };
}

/** Memory and swap in bytes: used memory = MemTotal - MemAvailable (MemFree + Buffers + Cached on old kernels). */
export async function readMemInfo(
  procDir = '/proc',
): Promise<{ mem: { current: number; total: number }; swap: { current: number; total: number } }> {
  const s = await text(procDir, 'meminfo');
  const kb = new Map<string, number>();
  for (const line of (s ?? '').split('\n')) {
    const m = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s*kB)?/.exec(line);
    if (m) kb.set(m[1]!, Number(m[2]) * 1024);
  }
  const total = kb.get('MemTotal') ?? 0;
  const available =
    kb.get('MemAvailable') ?? (kb.get('MemFree') ?? 0) + (kb.get('Buffers') ?? 0) + (kb.get('Cached') ?? 0);
  const swapTotal = kb.get('SwapTotal') ?? 0;
  const swapFree = kb.get('SwapFree') ?? 0;
  return {
    mem: { current: Math.max(0, total - available), total },
    swap: { current: Math.max(0, swapTotal - swapFree), total: swapTotal },
  };
}

/** Cumulative bytes received and sent over every interface but loopback (/proc/net/dev). */
export async function readNetDev(procDir = '/proc'): Promise<{ sent: number; recv: number }> {
  const s = await text(procDir, 'net/dev');
  let sent = 0;
  let recv = 0;
  for (const line of (s ?? '').split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const iface = line.slice(0, colon).trim();
    if (!iface || iface === 'lo') continue;
    const f = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/);
    if (f.length < 9) continue;
    recv += Number(f[0]) || 0;
    sent += Number(f[8]) || 0;
  }
  return { sent, recv };
}

/**
 * TCP sockets in use, IPv4 and IPv6, from /proc/net/sockstat{,6} (`TCP: inuse N`, `TCP6: inuse N`); when those
 * are missing, the entries of /proc/net/tcp and /proc/net/tcp6 are counted instead.
 */
export async function readTcpCount(procDir = '/proc'): Promise<number> {
  const [v4, v6] = await Promise.all([text(procDir, 'net/sockstat'), text(procDir, 'net/sockstat6')]);
  const inuse = (s: string | null, label: string): number | null => {
    const m = s && new RegExp(`^${label}:.*?\\binuse\\s+(\\d+)`, 'm').exec(s);
    return m ? Number(m[1]) : null;
  };
  const a = inuse(v4, 'TCP');
  const b = inuse(v6, 'TCP6');
  if (a !== null || b !== null) return (a ?? 0) + (b ?? 0);
  const [t4, t6] = await Promise.all([text(procDir, 'net/tcp'), text(procDir, 'net/tcp6')]);
  const rows = (s: string | null) =>
    s
      ? s
          .split('\n')
          .slice(1)
          .filter((l) => l.trim()).length
      : 0;
  return rows(t4) + rows(t6);
}

/** UDP sockets in use, IPv4 and IPv6 (`UDP: inuse N`, `UDP6: inuse N` of /proc/net/sockstat{,6}). */
export async function readUdpCount(procDir = '/proc'): Promise<number> {
  const [v4, v6] = await Promise.all([text(procDir, 'net/sockstat'), text(procDir, 'net/sockstat6')]);
  const inuse = (s: string | null, label: string) =>
    Number((s && new RegExp(`^${label}:.*?\\binuse\\s+(\\d+)`, 'm').exec(s)?.[1]) ?? 0);
  return inuse(v4, 'UDP') + inuse(v6, 'UDP6');
}

/** Seconds since the host booted (/proc/uptime); 0 when unreadable. */
export async function readUptime(procDir = '/proc'): Promise<number> {
  const s = await text(procDir, 'uptime');
  const v = s ? Number.parseFloat(s) : NaN;
  return Number.isFinite(v) ? Math.floor(v) : 0;
}

/** /proc/loadavg; null when unreadable (the caller falls back to os.loadavg()). */
export async function readLoadAvg(procDir = '/proc'): Promise<{ load1: number; load5: number; load15: number } | null> {
  const s = await text(procDir, 'loadavg');
  const f = s?.trim().split(/\s+/).map(Number);
  if (!f || f.length < 3 || f.slice(0, 3).some((x) => !Number.isFinite(x))) return null;
  return { load1: f[0]!, load5: f[1]!, load15: f[2]! };
}
