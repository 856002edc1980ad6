import { spawnSync } from 'node:child_process';

export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * The security suites run in the real-services pass (DATABASE_URL and NATS_URL set, as `.ci/run`
 * does): they need the nats-server program to run a server of their own with the production
 * configuration, a Postgres server to create throwaway roles and a database on, and psql and
 * openssl. Elsewhere they say so on stderr and skip.
 */
export function describeWithRealServices(suite: string, programs: string[]): jest.Describe {
  const missing = programs.filter((program) => !installed(program));
  const reason = !(process.env.DATABASE_URL && process.env.NATS_URL)
    ? 'DATABASE_URL/NATS_URL not set (it runs on real Postgres + NATS only)'
    : missing.length > 0
      ? `${missing.join(' and ')} not installed`
      : undefined;
  if (!reason) return describe;
  // Straight to stderr: Jest drops the console output of a file whose tests are all skipped.
  process.stderr.write(`${suite}: skipped, ${reason}\n`);
  return describe.skip;
}

function installed(program: string): boolean {
  const path = program === 'nats-server' ? NATS_SERVER : program;
  return spawnSync('sh', ['-c', `command -v ${path}`]).status === 0;
}
