// What the status API answers in the envelope's `obj` (zod, for the OpenAPI document and the typed client).
import { z } from 'zod';
import { CORE_METRICS } from './model.js';

const usage = z.object({ current: z.number(), total: z.number() });

export const statusObj = z.object({
  cpu: z.number().meta({ description: 'Percent of all CPUs busy over the last sample interval' }),
  mem: usage,
  swap: usage,
  disk: usage,
  netIO: z.object({ up: z.number(), down: z.number() }).meta({ description: 'Bytes per second, loopback excluded' }),
  core: z.object({ state: z.string(), version: z.string() }),
  tcpCount: z.number(),
  load: z.object({ load1: z.number(), load5: z.number(), load15: z.number() }),
  panelVersion: z.string(),
  udpCount: z.number(),
  netTraffic: z
    .object({ sent: z.number(), recv: z.number() })
    .meta({ description: 'Bytes since boot, loopback excluded' }),
  uptime: z.number().meta({ description: 'Seconds since the host booted' }),
  panelUptime: z.number().meta({ description: 'Seconds since the panel process started' }),
});

/** `{t, v}` samples: t the bucket start (Unix seconds), v the mean of its samples. */
export const historySamplesObj = z.array(z.object({ t: z.number(), v: z.number() }));

export const coreMetricsStateObj = z.object({
  enabled: z.boolean(),
  listen: z.string(),
  reason: z.string(),
  updatedAt: z.number(),
  values: z.record(z.enum(CORE_METRICS), z.number()).nullable(),
});

export const observatoryObj = z.array(
  z.object({
    tag: z.string(),
    alive: z.boolean(),
    delay: z.number(),
    lastSeenTime: z.number(),
    lastTryTime: z.number(),
    updatedAt: z.number(),
  }),
);
