import type { DataSource, EntityManager } from 'typeorm';
import { prepared } from '../prepared-statements';
import { RATE_LIMIT_WINDOW_MS, windowStartOf } from './rate-limit-window';

/** Windows older than this (from the current one's start) are deleted by the housekeeping. */
const KEEP_WINDOWS_MS = 2 * RATE_LIMIT_WINDOW_MS;

/**
 * Request counts per key and one-minute window, shared by every replica on the database (the
 * gateway's per-tenant limit and acme's per-key limits count in tables of this one shape).
 */
export abstract class RateLimitWindowStore {
  /** Adds `amount` to the key's window in one statement; the window's count after it. */
  abstract add(key: string, windowStart: Date, amount: number): Promise<number>;
  /**
   * Deletes the windows that can no longer be counted in: all but the one `nowMs` falls in and the
   * two before it (a replica's clock may lag a little). How many were deleted.
   */
  abstract removeOld(nowMs: number): Promise<number>;
}

/** Where a context keeps its windows: `<table> (<keyColumn>, window_start, count)`, keyed by both. */
export interface RateLimitWindowTable {
  /** Schema-qualified, e.g. `gateway.rate_limit_windows`. */
  table: string;
  keyColumn: string;
}

/** The start of the oldest window kept when the clock reads `nowMs`. */
export const oldestKeptWindow = (nowMs: number) => new Date(windowStartOf(nowMs) - KEEP_WINDOWS_MS);

export class SqlRateLimitWindowStore extends RateLimitWindowStore {
  constructor(
    private readonly db: DataSource | EntityManager,
    /** A constant of the context's, never input: it is written into the statements. */
    private readonly where: RateLimitWindowTable,
  ) {
    super();
  }

  async add(key: string, windowStart: Date, amount: number): Promise<number> {
    const { table, keyColumn } = this.where;
    // Prepared: every counted request runs it (prepared-statements.ts).
    const [{ count }]: { count: number }[] = await this.db.query(
      prepared(`INSERT INTO ${table} AS w (${keyColumn}, window_start, count) VALUES ($1, $2, $3)
       ON CONFLICT (${keyColumn}, window_start) DO UPDATE SET count = w.count + $3
       RETURNING w.count`),
      [key, windowStart, amount],
    );
    return Number(count);
  }

  async removeOld(nowMs: number): Promise<number> {
    const [, deleted] = (await this.db.query(`DELETE FROM ${this.where.table} WHERE window_start < $1`, [
      oldestKeptWindow(nowMs),
    ])) as [unknown[], number];
    return deleted;
  }
}

/**
 * The windows in this process's memory, counted as the table counts them: for unit tests. `added`
 * lists each `add` as it came (key, window start, amount); `failure`, when set, is thrown instead.
 */
export class MemoryRateLimitWindowStore extends RateLimitWindowStore {
  readonly counts = new Map<string, number>();
  readonly added: [string, Date, number][] = [];
  failure?: Error;

  async add(key: string, windowStart: Date, amount: number): Promise<number> {
    this.added.push([key, windowStart, amount]);
    if (this.failure) throw this.failure;
    const id = `${windowStart.getTime()} ${key}`;
    const count = (this.counts.get(id) ?? 0) + amount;
    this.counts.set(id, count);
    return count;
  }

  async removeOld(nowMs: number): Promise<number> {
    const oldest = oldestKeptWindow(nowMs).getTime();
    let deleted = 0;
    for (const id of [...this.counts.keys()]) {
      if (Number(id.slice(0, id.indexOf(' '))) < oldest) {
        this.counts.delete(id);
        deleted++;
      }
    }
    return deleted;
  }
}
