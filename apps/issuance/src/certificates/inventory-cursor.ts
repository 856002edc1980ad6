import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { CaError, parseUuid } from '@ca/contracts';
import { InventoryCursorKeyStore } from './inventory-cursor-key.store';

/** Where a page ended: the sort column's exact value (microseconds, as text) and the id. */
export interface KeysetPosition {
  key: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const refused = () =>
  CaError.validation([
    { field: 'cursor', message: 'is not a cursor of this query: follow nextCursor with the same parameters' },
  ]);

/**
 * docs/api.md#search-certificates cursors: the position, with an HMAC over the tenant, the
 * canonical query and the position, so a cursor of another tenant or query, or one altered, is
 * refused. The key is made once per database (inventory_cursor_key), so cursors outlive a restart
 * and work on every issuance replica.
 */
export class InventoryCursors {
  private key?: Promise<Buffer>;

  constructor(private readonly keys: InventoryCursorKeyStore) {}

  async encode(tenantId: string, query: string, position: KeysetPosition): Promise<string> {
    const payload = Buffer.from(`${position.key}|${position.id}`).toString('base64url');
    return `${payload}.${await this.mac(tenantId, query, payload)}`;
  }

  async decode(tenantId: string, query: string, cursor: string): Promise<KeysetPosition> {
    const [payload, mac, extra] = cursor.split('.');
    if (!payload || !mac || extra !== undefined) throw refused();
    const expected = Buffer.from(await this.mac(tenantId, query, payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
    const [key, id] = Buffer.from(payload, 'base64url').toString().split('|');
    if (!TIMESTAMP.test(key ?? '') || id === undefined || parseUuid(id) !== id) throw refused();
    return { key, id };
  }

  private async mac(tenantId: string, query: string, payload: string): Promise<string> {
    return createHmac('sha256', await this.secret())
      .update(`${tenantId}\n${query}\n${payload}`)
      .digest('base64url');
  }

  private secret(): Promise<Buffer> {
    this.key ??= this.loadKey().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  private loadKey(): Promise<Buffer> {
    // The first replica to ask makes it; every other one reads the same row.
    return this.keys.key(randomBytes(32));
  }
}
