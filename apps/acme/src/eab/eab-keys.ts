import { randomBytes } from 'node:crypto';
import { CaError, CreateEabKeyResult, EabKeySummary } from '@ca/contracts';
import { sealTo } from '@ca/custody';
import { DataSource } from 'typeorm';
import { EabKeySealer } from './eab-key-sealer';

interface EabKeyRow {
  key_id: string;
  tenant_id: string;
  sealed_hmac_key: Buffer;
  created_at: Date;
  bound_account_id: string | null;
  disabled_at: Date | null;
}

/** A key as the account creation checks it (RFC 8555 7.3.4). */
export interface EabKey {
  keyId: string;
  tenantId: string;
  /** Undefined when the stored key does not open (altered, moved to another row, another KEK). */
  hmacKey?: Buffer;
  boundAccountId?: string;
  disabled: boolean;
}

/**
 * External Account Binding keys (docs/api.md#acme-external-account-binding): made here, the only
 * place that verifies them; the HMAC key leaves once, sealed to the gateway's ephemeral key, and
 * is stored only sealed under the acme KEK (`EabKeySealer`).
 */
export class EabKeys {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sealer: EabKeySealer,
    private readonly onUnopenable: (keyId: string, tenantId: string) => void = () => undefined,
  ) {}

  async create(tenantId: string, recipientPublicKey: string): Promise<CreateEabKeyResult> {
    const keyId = newEabKeyId();
    const hmacKey = randomBytes(32);
    let sealed;
    try {
      sealed = sealTo(recipientPublicKey, Buffer.from(hmacKey.toString('base64url')));
    } catch {
      throw CaError.validation([{ field: 'recipientPublicKey', message: 'must be an X25519 public key' }]);
    }
    const [row] = (await this.dataSource.query(
      'INSERT INTO acme.eab_keys (key_id, tenant_id, sealed_hmac_key) VALUES ($1, $2, $3) RETURNING created_at',
      [keyId, tenantId, this.sealer.seal({ tenantId, keyId }, hmacKey)],
    )) as { created_at: Date }[];
    return { keyId, createdAt: row.created_at.toISOString(), sealedHmacKey: sealed };
  }

  async list(tenantId: string): Promise<EabKeySummary[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM acme.eab_keys WHERE tenant_id = $1 ORDER BY created_at, key_id',
      [tenantId],
    )) as EabKeyRow[];
    return rows.map(summary);
  }

  /** Disabling is final; an account already bound keeps working (its key is its credential now). */
  async disable(tenantId: string, keyId: string): Promise<EabKeySummary> {
    const rows = (await this.dataSource.query(
      `UPDATE acme.eab_keys SET disabled_at = coalesce(disabled_at, now())
       WHERE tenant_id = $1 AND key_id = $2 RETURNING *`,
      [tenantId, keyId],
    )) as [EabKeyRow[], number];
    const row = rows[0]?.[0];
    if (!row) throw CaError.notFound('No such EAB key in this tenant.');
    return summary(row);
  }

  async find(keyId: string): Promise<EabKey | undefined> {
    const [row] = (await this.dataSource.query('SELECT * FROM acme.eab_keys WHERE key_id = $1', [
      keyId,
    ])) as EabKeyRow[];
    if (!row) return undefined;
    let hmacKey: Buffer | undefined;
    try {
      hmacKey = this.sealer.open({ tenantId: row.tenant_id, keyId: row.key_id }, row.sealed_hmac_key);
    } catch {
      this.onUnopenable(row.key_id, row.tenant_id);
    }
    return {
      keyId: row.key_id,
      tenantId: row.tenant_id,
      hmacKey,
      boundAccountId: row.bound_account_id ?? undefined,
      disabled: row.disabled_at !== null,
    };
  }
}

/**
 * A new key id: `k` and 128 random bits in base64url. The letter first means no id starts with `-`,
 * which a shell command line (`certbot --eab-kid "$KID"`) would read as an option. Ids made before
 * (bare base64url) stay valid: ids are only ever looked up, never parsed.
 */
export function newEabKeyId(): string {
  return `k${randomBytes(16).toString('base64url')}`;
}

function summary(row: EabKeyRow): EabKeySummary {
  return {
    keyId: row.key_id,
    createdAt: row.created_at.toISOString(),
    ...(row.bound_account_id ? { boundAccount: row.bound_account_id } : {}),
    disabled: row.disabled_at !== null,
  };
}
