import { randomBytes } from 'node:crypto';
import { CaError, CreateEabKeyResult, EabKeySummary } from '@ca/contracts';
import { sealTo } from '@ca/custody';
import { EabKeyStore, StoredEabKey } from '../stores/eab-key.store';
import { EabKeySealer } from './eab-key-sealer';

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
    private readonly keys: EabKeyStore,
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
    const createdAt = await this.keys.add(tenantId, keyId, this.sealer.seal({ tenantId, keyId }, hmacKey));
    return { keyId, createdAt: createdAt.toISOString(), sealedHmacKey: sealed };
  }

  async list(tenantId: string): Promise<EabKeySummary[]> {
    return (await this.keys.list(tenantId)).map(summary);
  }

  /** Disabling is final; an account already bound keeps working (its key is its credential now). */
  async disable(tenantId: string, keyId: string): Promise<EabKeySummary> {
    const row = await this.keys.disable(tenantId, keyId);
    if (!row) throw CaError.notFound('No such EAB key in this tenant.');
    return summary(row);
  }

  async find(keyId: string): Promise<EabKey | undefined> {
    const row = await this.keys.find(keyId);
    if (!row) return undefined;
    let hmacKey: Buffer | undefined;
    try {
      hmacKey = this.sealer.open({ tenantId: row.tenantId, keyId: row.keyId }, row.sealedHmacKey);
    } catch {
      this.onUnopenable(row.keyId, row.tenantId);
    }
    return {
      keyId: row.keyId,
      tenantId: row.tenantId,
      hmacKey,
      boundAccountId: row.boundAccountId,
      disabled: row.disabledAt !== undefined,
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

function summary(row: StoredEabKey): EabKeySummary {
  return {
    keyId: row.keyId,
    createdAt: row.createdAt.toISOString(),
    ...(row.boundAccountId ? { boundAccount: row.boundAccountId } : {}),
    disabled: row.disabledAt !== undefined,
  };
}
