// Copies non-TypeScript runtime assets (SQL migrations, .proto files) next to the compiled JavaScript.
import { cpSync, existsSync } from 'node:fs';
for (const dir of ['storage/migrations', 'host-agent/proto']) {
  if (existsSync(dir)) cpSync(dir, `dist/${dir}`, { recursive: true });
}
