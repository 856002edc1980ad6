import { DataSource } from 'typeorm';
import { SealedPayload } from './download-payload';

export type DownloadKind = 'certificate' | 'private-key' | 'pkcs12';

export interface StoredDownload extends SealedPayload {
  lookupHash: Buffer;
  kind: DownloadKind;
  singleUse: boolean;
  fileName: string;
  expiresAt: Date;
}

interface DownloadRow {
  lookup_hash: Buffer;
  kind: DownloadKind;
  single_use: boolean;
  file_name: string;
  iv: Buffer;
  sealed: Buffer;
  expires_at: Date;
}

/** gateway.downloads: sealed payloads waiting for their link (statements name the schema). */
export class DownloadStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(downloads: StoredDownload[]): Promise<void> {
    if (downloads.length === 0) return;
    const values: unknown[] = [];
    const rows = downloads.map((d, i) => {
      values.push(d.lookupHash, d.kind, d.singleUse, d.fileName, d.iv, d.sealed, d.expiresAt);
      const n = i * 7;
      return `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}, $${n + 7})`;
    });
    await this.dataSource.query(
      `INSERT INTO gateway.downloads (lookup_hash, kind, single_use, file_name, iv, sealed, expires_at)
       VALUES ${rows.join(', ')}`,
      values,
    );
  }

  /** The download of this lookup hash if it has not expired at `now`. */
  async findLive(lookupHash: Buffer, now: Date): Promise<StoredDownload | undefined> {
    const rows: DownloadRow[] = await this.dataSource.query(
      `SELECT lookup_hash, kind, single_use, file_name, iv, sealed, expires_at
       FROM gateway.downloads WHERE lookup_hash = $1 AND expires_at > $2`,
      [lookupHash, now],
    );
    const row = rows[0];
    return row
      ? {
          lookupHash: Buffer.from(row.lookup_hash),
          kind: row.kind,
          singleUse: row.single_use,
          fileName: row.file_name,
          iv: Buffer.from(row.iv),
          sealed: Buffer.from(row.sealed),
          expiresAt: new Date(row.expires_at),
        }
      : undefined;
  }

  /**
   * Deletes the row and says whether this call did: of two concurrent downloads of a single-use
   * link exactly one deletes it (Postgres row lock; the other sees no row) and only that one serves.
   */
  async consume(lookupHash: Buffer): Promise<boolean> {
    const deleted: unknown[] = await this.dataSource.query(
      'DELETE FROM gateway.downloads WHERE lookup_hash = $1 RETURNING 1 AS gone',
      [lookupHash],
    );
    return rowCount(deleted) === 1;
  }

  /** Erases every payload whose link has expired; returns how many. */
  async removeExpired(now: Date): Promise<number> {
    const deleted: unknown[] = await this.dataSource.query(
      'DELETE FROM gateway.downloads WHERE expires_at <= $1 RETURNING 1 AS gone',
      [now],
    );
    return rowCount(deleted);
  }
}

/** TypeORM's postgres driver answers a DELETE … RETURNING with [rows, count]. */
function rowCount(result: unknown[]): number {
  if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[1];
  return result.length;
}
