// `npm run release`: release/proxy-panel-<version>.tar.gz and its .sha256 — the built dist/, package.json, the
// lock file, the production dependencies installed (from the npm cache when it has them), the install and
// uninstall scripts and the operator docs. This is the archive scripts/install.sh and the self-update take.
import { execFileSync } from 'node:child_process';
import { cpSync, createReadStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const name = `proxy-panel-${pkg.version}`;
const out = 'release';
const stage = join(out, name);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

execFileSync(npm, ['run', 'build', '--silent'], { stdio: 'inherit' });
rmSync(stage, { recursive: true, force: true });
mkdirSync(join(stage, 'scripts'), { recursive: true });
cpSync('dist', join(stage, 'dist'), { recursive: true });
for (const f of ['package.json', 'package-lock.json', 'README.md']) cpSync(f, join(stage, f));
for (const f of ['install.sh', 'uninstall.sh']) cpSync(join('scripts', f), join(stage, 'scripts', f));
if (existsSync('docs')) cpSync('docs', join(stage, 'docs'), { recursive: true });
// Production dependencies only, without install scripts (the native database client ships prebuilt).
execFileSync(npm, ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: stage, stdio: 'inherit' });
const archive = join(out, `${name}.tar.gz`);
execFileSync('tar', ['-czf', archive, '-C', out, name]);
const hash = createHash('sha256');
for await (const chunk of createReadStream(archive)) hash.update(chunk);
writeFileSync(`${archive}.sha256`, `${hash.digest('hex')}  ${name}.tar.gz\n`);
rmSync(stage, { recursive: true, force: true });
console.log(`${archive}\n${archive}.sha256`);
