// The HostMetrics port on the panel host: /proc readers, statfs for the disk, os.loadavg() as the load fallback.
import { statfs } from 'node:fs/promises';
import { loadavg } from 'node:os';
import type { HostMetrics, HostReading } from '../../domain/ports/host.js';
import { readCpuTimes, readLoadAvg, readMemInfo, readNetDev, readTcpCount, readUdpCount, readUptime } from './proc.js';

/** Disk usage of the file system holding `path`: used = (blocks - free blocks) × block size. */
export async function readDisk(path = '/'): Promise<{ current: number; total: number }> {
  try {
    const s = await statfs(path);
    const total = Number(s.blocks) * Number(s.bsize);
    const free = Number(s.bfree) * Number(s.bsize);
    return { current: Math.max(0, total - free), total };
  } catch {
    return { current: 0, total: 0 };
  }
}

export interface ProcHostOptions {
  /** The /proc directory (tests point it at fixtures). */
  procDir?: string;
  /** A path on the file system whose usage `disk` reports. */
  diskPath?: string;
}

export function createProcHost(opts: ProcHostOptions = {}): HostMetrics {
  const procDir = opts.procDir ?? '/proc';
  const diskPath = opts.diskPath ?? '/';
  return {
    async read(): Promise<HostReading> {
      const [cpu, memInfo, net, tcpCount, udpCount, uptime, load, disk] = await Promise.all([
        readCpuTimes(procDir),
        readMemInfo(procDir),
        readNetDev(procDir),
        readTcpCount(procDir),
        readUdpCount(procDir),
        readUptime(procDir),
        readLoadAvg(procDir),
        readDisk(diskPath),
      ]);
      const [l1, l5, l15] = loadavg();
      return {
        cpu,
        mem: memInfo.mem,
        swap: memInfo.swap,
        disk,
        net,
        tcpCount,
        udpCount,
        uptime,
        load: load ?? { load1: l1 ?? 0, load5: l5 ?? 0, load15: l15 ?? 0 },
      };
    },
  };
}
