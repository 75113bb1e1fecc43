// Structured logs: one JSON object per line on stderr, filtered by PANEL_LOG_LEVEL. Fields whose names look like
// secrets (password, token, secret…) are redacted, so a careless call cannot leak a credential into the log.
import type { Logger } from '../../handlers/context.js';
import type { LogLevel } from './config.js';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie/i;

function clean(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (SECRET_FIELD.test(k)) out[k] = '[redacted]';
    else if (v instanceof Error) out[k] = v.message;
    else out[k] = v;
  }
  return out;
}

export function createLogger(
  level: LogLevel,
  sink: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
  const log = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    let line: string;
    try {
      line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...clean(fields) });
    } catch {
      line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, note: 'fields not serialisable' });
    }
    sink(line);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
