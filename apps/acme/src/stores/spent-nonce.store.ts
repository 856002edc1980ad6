import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ID_OCTETS, SpentNonces } from '../protocol/nonce-store';

/**
 * Spent nonces in acme.spent_nonces, shared by every replica on the database: spending one is a
 * single insert that only the first request of that nonce makes.
 */
export class SharedSpentNonces implements SpentNonces {
  constructor(private readonly dataSource: DataSource) {}

  newId(): Buffer {
    return randomBytes(ID_OCTETS);
  }

  async claim(id: Buffer, expiresAt: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO acme.spent_nonces (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING 1`,
      [id, expiresAt],
    );
    return rows.length === 1;
  }

  async prune(now: Date): Promise<number> {
    const [, count] = (await this.dataSource.query('DELETE FROM acme.spent_nonces WHERE expires_at <= $1', [
      now,
    ])) as [unknown[], number];
    return count;
  }
}
