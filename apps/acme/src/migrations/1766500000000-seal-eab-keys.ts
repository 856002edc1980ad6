import { MigrationInterface, QueryRunner } from 'typeorm';
import { EabKeyOwner, EabKeySealer } from '../eab/eab-key-sealer';

/**
 * EAB HMAC keys were stored in clear; from here on only sealed under the acme KEK
 * (docs/operations.md#key-encryption-keys). Made per start, since sealing needs the KEK.
 */
export function sealEabKeysMigration(sealer: EabKeySealer): new () => MigrationInterface {
  return class SealEabKeys1766500000000 implements MigrationInterface {
    name = 'SealEabKeys1766500000000';

    async up(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query('ALTER TABLE acme.eab_keys RENAME COLUMN hmac_key TO sealed_hmac_key');
      await rewriteEveryKey(queryRunner, (owner, key) => sealer.seal(owner, key));
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await rewriteEveryKey(queryRunner, (owner, key) => sealer.open(owner, key));
      await queryRunner.query('ALTER TABLE acme.eab_keys RENAME COLUMN sealed_hmac_key TO hmac_key');
    }
  };
}

/** Replaces each row's `sealed_hmac_key` by `transform` of it (sealing up, opening down). */
async function rewriteEveryKey(
  queryRunner: QueryRunner,
  transform: (owner: EabKeyOwner, key: Buffer) => Buffer,
): Promise<void> {
  const rows = (await queryRunner.query('SELECT key_id, tenant_id, sealed_hmac_key FROM acme.eab_keys')) as {
    key_id: string;
    tenant_id: string;
    sealed_hmac_key: Buffer;
  }[];
  for (const row of rows) {
    const owner = { tenantId: row.tenant_id, keyId: row.key_id };
    await queryRunner.query('UPDATE acme.eab_keys SET sealed_hmac_key = $1 WHERE key_id = $2', [
      transform(owner, row.sealed_hmac_key),
      row.key_id,
    ]);
  }
}
