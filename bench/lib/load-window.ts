import type { LoadResult, LoadSpec } from './http-load';
import { percentile } from './stats';

/**
 * The measured window of a closed-loop load, shared by both loaders: answers sent after the
 * warm-up and completed before the end count; the rest only keep the server busy.
 */
export class LoadWindow {
  private readonly latencies: number[] = [];
  private readonly errorKinds: Record<string, number> = {};
  private errors = 0;
  private reused = 0;
  private counted = 0;
  private okTotal = 0;
  private readonly measureFrom: number;
  private readonly end: number;

  constructor(private readonly spec: Pick<LoadSpec, 'warmupMs' | 'durationMs'>) {
    this.measureFrom = performance.now() + spec.warmupMs;
    this.end = this.measureFrom + spec.durationMs;
  }

  /** Whether workers should send another request. */
  get open(): boolean {
    return performance.now() < this.end;
  }

  /** One answer (or failure) of a request sent at `sent`, completed at `done`. */
  record(sent: number, done: number, reusedConnection: boolean, error: string | undefined): void {
    if (!error) this.okTotal++;
    if (sent < this.measureFrom || done > this.end) return;
    this.counted++;
    if (reusedConnection) this.reused++;
    if (error) {
      this.errors++;
      this.errorKinds[error] = (this.errorKinds[error] ?? 0) + 1;
    } else {
      this.latencies.push(done - sent);
    }
  }

  result(): LoadResult {
    const windowSeconds = this.spec.durationMs / 1000;
    return {
      ok: this.latencies.length,
      okTotal: this.okTotal,
      errors: this.errors,
      errorKinds: this.errorKinds,
      perSecond: this.latencies.length / windowSeconds,
      p50: percentile(this.latencies, 50),
      p99: percentile(this.latencies, 99),
      reusedShare: this.counted === 0 ? 0 : this.reused / this.counted,
    };
  }
}
