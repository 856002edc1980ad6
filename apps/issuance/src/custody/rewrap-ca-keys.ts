import { CustodiedKey, KeyCustodyError, LocalKeyCustody } from '@ca/custody';
import { IssuanceDatabase } from '../issuance-database.store';
import { WrappedKeyRow, WrappedKeyTable } from './wrapped-key.store';

export interface RewrapResult {
  /** Keys now wrapped under the new KEK that were not before. */
  rewrapped: number;
  /** Keys that already were (an earlier, interrupted or repeated rotation). */
  alreadyCurrent: number;
}

/**
 * KEK rotation of `KEY_CUSTODY=local`: every CA key of every tenant (pending ones too,
 * docs/api.md#external-root) is re-wrapped under `to`, in
 * one transaction with the rows locked, so either all keys move to the new KEK or none does.
 * The key pairs stay the same, so certificates, CRLs and OCSP signers remain valid. Idempotent: a
 * key that `to` already opens is left as it is.
 */
export async function rewrapCaKeys(
  database: IssuanceDatabase,
  from: LocalKeyCustody,
  to: LocalKeyCustody,
): Promise<RewrapResult> {
  return database.transaction(async ({ wrappedKeys }) => {
    const result: RewrapResult = { rewrapped: 0, alreadyCurrent: 0 };
    for (const table of TABLES) {
      const authorities = await wrappedKeys.lockLocal(table);
      for (const authority of authorities) {
        const ctx = { tenantId: authority.tenantId, keyId: authority.id };
        const key = custodiedKeyOf(authority);
        if (await opens(to, ctx, key)) {
          result.alreadyCurrent += 1;
          continue;
        }
        const rewrapped = await from.rewrapUnder(to, ctx, key);
        await wrappedKeys.replace(table, authority.id, Buffer.from(rewrapped.wrapped));
        result.rewrapped += 1;
      }
    }
    return result;
  });
}

/** CAs first, then pending ones, as the rows have always been locked. */
const TABLES: readonly WrappedKeyTable[] = ['certificate_authorities', 'pending_cas'];

function custodiedKeyOf(authority: WrappedKeyRow): CustodiedKey {
  return {
    keyId: authority.id,
    algorithm: authority.keyAlgorithm as CustodiedKey['algorithm'],
    publicKeySpki: new Uint8Array(authority.publicKeySpki),
    wrapped: new Uint8Array(authority.wrappedKey),
  };
}

async function opens(
  custody: LocalKeyCustody,
  ctx: { tenantId: string; keyId: string },
  key: CustodiedKey,
): Promise<boolean> {
  try {
    await custody.openSigningKey(ctx, key);
    return true;
  } catch (error) {
    if (error instanceof KeyCustodyError && error.failure === 'key-unavailable') return false;
    throw error;
  }
}
