// Start-up step of the server and the command-line tool: private umask, then the data directory (and a file
// database kept elsewhere) narrowed to the panel's own user. See host-agent/data-dir.ts.
import { databaseFiles, secureDataDir, usePrivateUmask } from '../../host-agent/data-dir.js';
import type { Logger } from '../../handlers/context.js';
import type { NodeConfig } from './config.js';

export function secureFiles(
  config: Pick<NodeConfig, 'dataDir' | 'dbUrl'>,
  logger?: Pick<Logger, 'info' | 'warn'>,
): void {
  usePrivateUmask();
  const result = secureDataDir(config.dataDir, databaseFiles(config.dbUrl));
  if (result.skipped)
    logger?.warn('data directory permissions not checked', { dataDir: config.dataDir, reason: result.skipped });
  if (result.fixed.length > 0) {
    logger?.info('data directory permissions tightened to the panel user only (directories 0700, files 0600)', {
      dataDir: config.dataDir,
      count: result.fixed.length,
      paths: result.fixed.slice(0, 20),
    });
  }
}
