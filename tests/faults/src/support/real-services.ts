import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The fault suites run only in the real-services pass of `.ci/run` (DATABASE_URL and NATS_URL
 * set): they need a Postgres server to create databases on and the nats-server and PostgreSQL
 * programs to run instances of their own. Elsewhere they say so and skip.
 */
export function describeWithRealServices(suite: string): jest.Describe {
  if (process.env.DATABASE_URL && process.env.NATS_URL) return describe;
  // Straight to stderr: Jest drops the console output of a file whose tests are all skipped.
  process.stderr.write(
    `${suite}: DATABASE_URL/NATS_URL not set, fault suite skipped (it runs on real Postgres + NATS only)\n`,
  );
  return describe.skip;
}

/**
 * A directory for the processes' logs; removed when every test passed, kept (and its path
 * printed) otherwise or with FAULTS_KEEP_LOGS set, so a run can be read afterwards.
 */
export class LogDir {
  private dir?: string;
  private passed = 0;

  constructor(private readonly expectedTests: number) {}

  /** Made on first use, so that a skipped suite leaves nothing behind. */
  get path(): string {
    return (this.dir ??= mkdtempSync(join(tmpdir(), 'ca-faults-logs-')));
  }

  testPassed(): void {
    this.passed++;
  }

  close(): void {
    const dir = this.dir;
    if (!dir) return;
    this.dir = undefined; // closed once, though a failed start and afterAll may both ask
    if (this.passed === this.expectedTests && !process.env.FAULTS_KEEP_LOGS)
      rmSync(dir, { recursive: true, force: true });
    else console.warn(`fault suite logs kept in ${dir}`);
  }
}

/** One line of figures per test, for docs/reliability.md. */
export function reportFigures(test: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[faults] ${test}: ${JSON.stringify(figures)}\n`);
}
