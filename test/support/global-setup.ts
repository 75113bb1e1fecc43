// Runs once per `vitest run`: builds the service (end-to-end suites spawn dist/) and drops PostgreSQL test
// databases afterwards.
import { execFileSync } from 'node:child_process';
import { dropTestDatabases } from './databases.js';

export async function setup(): Promise<void> {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}

export async function teardown(): Promise<void> {
  await dropTestDatabases();
}
