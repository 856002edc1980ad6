import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A directory for the processes' logs; removed when every test passed, kept (and its path
 * printed) otherwise or with SECURITY_KEEP_LOGS set, so a run can be read afterwards.
 */
export class LogDir {
  private dir?: string;
  private passed = 0;

  constructor(private readonly expectedTests: number) {}

  /** Made on first use, so that a skipped suite leaves nothing behind. */
  get path(): string {
    return (this.dir ??= mkdtempSync(join(tmpdir(), 'ca-security-logs-')));
  }

  testPassed(): void {
    this.passed++;
  }

  close(): void {
    if (!this.dir) return;
    if (this.passed === this.expectedTests && !process.env.SECURITY_KEEP_LOGS)
      rmSync(this.dir, { recursive: true, force: true });
    else console.warn(`security suite logs kept in ${this.dir}`);
  }
}
