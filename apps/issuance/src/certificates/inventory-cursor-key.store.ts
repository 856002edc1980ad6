import { EntityManager } from 'typeorm';

/** `issuance.inventory_cursor_key`: the one key every replica signs inventory cursors with. */
export abstract class InventoryCursorKeyStore {
  /** The key, stored as `candidate` by the first replica to ask; every other one reads the same. */
  abstract key(candidate: Buffer): Promise<Buffer>;
}

export class SqlInventoryCursorKeyStore extends InventoryCursorKeyStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async key(candidate: Buffer): Promise<Buffer> {
    await this.db.query(
      'INSERT INTO issuance.inventory_cursor_key (id, key) VALUES (true, $1) ON CONFLICT (id) DO NOTHING',
      [candidate],
    );
    const rows: { key: Buffer }[] = await this.db.query(
      'SELECT key FROM issuance.inventory_cursor_key WHERE id',
    );
    return rows[0].key;
  }
}
