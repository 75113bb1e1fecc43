// Runs once per `vitest run`: builds the service (end-to-end suites spawn dist/) and drops PostgreSQL test
// databases afterwards.
import { execFileSync } from 'node:child_process';
import { dropTestDatabases } from './databases.js';

export async function setup(): Promise<void> {
  // Inherited by the test workers (forks): see databases.ts.
  process.env.PANEL_TEST_RUN_ID ??= `${process.pid}x${Date.now().toString(36)}`;
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}

export async function teardown(): Promise<void> {
  await dropTestDatabases();
}
