// Which core binary the real-core suites use: PANEL_TEST_CORE_BIN. Unset: the suites are skipped with ONE line
// (printed once per process); with CI=true a missing binary fails the run instead (RUNTIME.md).
import { accessSync, constants } from 'node:fs';

let warned = false;

/** The core binary path, or null when the real-core suites must be skipped. Throws under CI=true when missing. */
export function testCoreBin(): string | null {
  const bin = process.env.PANEL_TEST_CORE_BIN;
  if (!bin) {
    if (process.env.CI === 'true')
      throw new Error('CI=true but PANEL_TEST_CORE_BIN is unset: the real-core end-to-end suites cannot be skipped');
    if (!warned) {
      warned = true;
      console.log('PANEL_TEST_CORE_BIN is unset: skipping the real-core end-to-end suites');
    }
    return null;
  }
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error(`PANEL_TEST_CORE_BIN=${bin} is not an executable file`);
  }
  return bin;
}

/** A program the suites need (ss-local, trojan, curl, openssl), failing with a clear message when absent. */
export function requireProgram(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      return `${dir}/${name}`;
    } catch {
      /* next */
    }
  }
  throw new Error(`${name} is not installed (apt-get install v2ray shadowsocks-libev trojan openssl curl)`);
}
