/** First pause before a crashed worker is started again; doubled per crash in a row. */
export const FIRST_RESTART_DELAY_MS = 500;
/** Longest pause between restarts of a worker that keeps crashing. */
export const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that ran this long before it died starts a new series: its next restart is quick again. */
export const STABLE_AFTER_MS = 60_000;
/** Start failures in a row (no worker started in between) after which the primary gives up. */
export const MAX_START_FAILURES = 3;

/** What the primary does about a worker that exited while the service was not stopping. */
export type RestartDecision = { action: 'restart'; delayMs: number } | { action: 'give-up'; reason: string };

/**
 * When to start a dead worker again, and when to stop trying. A worker that dies before it has
 * started (configuration error, port in use, database unreachable at start) counts as a start
 * failure: when every worker failed its first start, or start failures come `MAX_START_FAILURES`
 * times in a row, the primary exits non-zero so that a supervisor (systemd, Kubernetes, `nx serve`)
 * sees the service fail. A worker that dies after it started is restarted with a back-off that
 * doubles while crashes follow each other and starts again from `FIRST_RESTART_DELAY_MS` after a
 * worker ran `STABLE_AFTER_MS`.
 */
export class WorkerRestarts {
  private everStarted = false;
  private firstStartFailures = 0;
  private startFailuresInARow = 0;
  private crashesInARow = 0;

  constructor(private readonly workers: number) {}

  /** A worker reported it started (its surface listens, its consumers run). */
  started(): void {
    this.everStarted = true;
    this.startFailuresInARow = 0;
  }

  /** A worker exited on its own; `ranMs` since it was forked, `started` whether it got that far. */
  exited(started: boolean, ranMs: number): RestartDecision {
    if (!started) {
      this.startFailuresInARow++;
      if (!this.everStarted && ++this.firstStartFailures >= this.workers)
        return { action: 'give-up', reason: 'every worker failed to start' };
      if (this.startFailuresInARow >= MAX_START_FAILURES)
        return {
          action: 'give-up',
          reason: `workers failed to start ${this.startFailuresInARow} times in a row`,
        };
      return { action: 'restart', delayMs: this.backOff() };
    }
    if (ranMs >= STABLE_AFTER_MS) this.crashesInARow = 0;
    return { action: 'restart', delayMs: this.backOff() };
  }

  private backOff(): number {
    const delay = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** this.crashesInARow);
    this.crashesInARow++;
    return delay;
  }
}
