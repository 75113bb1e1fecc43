#!/usr/bin/env node
// `npm start`: runs the panel and the subscription server in the foreground until SIGTERM/SIGINT.
import { readConfig } from './config.js';
import { createLogger } from './logger.js';
import { panelLogRing } from './log-ring.js';
import { PanelServer } from './server.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lifecycle, READY_FILE } from './lifecycle.js';

const STOP_DEADLINE_MS = 9000;

async function main(): Promise<void> {
  const config = readConfig();
  // The last lines also stay in memory for POST /panel/api/server/logs/:count.
  const logger = createLogger(
    config.logLevel,
    panelLogRing.tee((l) => process.stderr.write(`${l}\n`)),
  );
  const server = new PanelServer(config, logger);
  // The handlers go in before start: the listeners are announced before the core has started, and a signal
  // that arrives in between must stop the service gracefully, not kill it.
  const started = server.start();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    const deadline = setTimeout(() => {
      logger.error('graceful stop took too long; exiting');
      process.exit(1);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    try {
      await started.catch(() => undefined); // a failed start reports itself below
      await server.stop();
      process.exit(lifecycle.exitCode);
    } catch (err) {
      logger.error('stop failed', { error: String(err) });
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await started;
  // The launcher's health check of a self-update waits for this file with the new version and this pid.
  writeFileSync(join(config.dataDir, READY_FILE), JSON.stringify({ version: config.panelVersion, pid: process.pid }), {
    mode: 0o600,
  });
}

main().catch((err) => {
  console.error(`panel failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
