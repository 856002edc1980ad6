import { DataSource, EntityManager } from 'typeorm';

/** An `acme.eab_keys` row as it is kept: the HMAC key only sealed. */
export interface StoredEabKey {
  keyId: string;
  tenantId: string;
  sealedHmacKey: Buffer;
  createdAt: Date;
  boundAccountId?: string;
  disabledAt?: Date;
}

interface EabKeyRow {
  key_id: string;
  tenant_id: string;
  sealed_hmac_key: Buffer;
  created_at: Date;
  bound_account_id: string | null;
  disabled_at: Date | null;
}

const toKey = (row: EabKeyRow): StoredEabKey => ({
  keyId: row.key_id,
  tenantId: row.tenant_id,
  sealedHmacKey: row.sealed_hmac_key,
  createdAt: row.created_at,
  ...(row.bound_account_id ? { boundAccountId: row.bound_account_id } : {}),
  ...(row.disabled_at ? { disabledAt: row.disabled_at } : {}),
});

/** `acme.eab_keys`: the tenants' External Account Binding keys, sealed (binding one is the account store's). */
export abstract class EabKeyStore {
  /** Keeps a new key; when it was made. */
  abstract add(tenantId: string, keyId: string, sealedHmacKey: Buffer): Promise<Date>;
  /** The tenant's keys, oldest first. */
  abstract list(tenantId: string): Promise<StoredEabKey[]>;
  /** Marks the tenant's key disabled (once: a second time keeps the first time); undefined when there is none. */
  abstract disable(tenantId: string, keyId: string): Promise<StoredEabKey | undefined>;
  /** The key of this id, whatever its tenant (the account creation checks that). */
  abstract find(keyId: string): Promise<StoredEabKey | undefined>;
}

export class SqlEabKeyStore extends EabKeyStore {
  constructor(private readonly db: DataSource | EntityManager) {
    super();
  }

  async add(tenantId: string, keyId: string, sealedHmacKey: Buffer): Promise<Date> {
    const [row] = (await this.db.query(
      'INSERT INTO acme.eab_keys (key_id, tenant_id, sealed_hmac_key) VALUES ($1, $2, $3) RETURNING created_at',
      [keyId, tenantId, sealedHmacKey],
    )) as { created_at: Date }[];
    return row.created_at;
  }

  async list(tenantId: string): Promise<StoredEabKey[]> {
    const rows = (await this.db.query(
      'SELECT * FROM acme.eab_keys WHERE tenant_id = $1 ORDER BY created_at, key_id',
      [tenantId],
    )) as EabKeyRow[];
    return rows.map(toKey);
  }

  async disable(tenantId: string, keyId: string): Promise<StoredEabKey | undefined> {
    const rows = (await this.db.query(
      `UPDATE acme.eab_keys SET disabled_at = coalesce(disabled_at, now())
       WHERE tenant_id = $1 AND key_id = $2 RETURNING *`,
      [tenantId, keyId],
    )) as [EabKeyRow[], number];
    const row = rows[0]?.[0];
    return row ? toKey(row) : undefined;
  }

  async find(keyId: string): Promise<StoredEabKey | undefined> {
    const [row] = (await this.db.query('SELECT * FROM acme.eab_keys WHERE key_id = $1', [
      keyId,
    ])) as EabKeyRow[];
    return row ? toKey(row) : undefined;
  }
}
