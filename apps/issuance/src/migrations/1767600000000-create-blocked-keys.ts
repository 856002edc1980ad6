import { MigrationInterface, QueryRunner } from 'typeorm';
import { spkiSha256OfCertificate } from '../certificates/blocked-keys';

/**
 * docs/api.md#revoke-a-certificate: the keys of a tenant's certificates revoked for keyCompromise,
 * by SHA-256 of their SubjectPublicKeyInfo, which no CSR may have certified again. Filled from the
 * certificates already revoked so.
 */
export class CreateBlockedKeys1767600000000 implements MigrationInterface {
  name = 'CreateBlockedKeys1767600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.blocked_keys (
      tenant_id uuid NOT NULL,
      spki_sha256 bytea NOT NULL,
      certificate_id uuid NOT NULL,
      blocked_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, spki_sha256)
    )`);
    const revoked: { id: string; tenant_id: string; certificate_der: Buffer; revoked_at: Date }[] =
      await queryRunner.query(
        `SELECT id, tenant_id, certificate_der, revoked_at FROM issuance.certificates
          WHERE revocation_reason_code = 1 ORDER BY revoked_at`,
      );
    for (const row of revoked) {
      await queryRunner.query(
        `INSERT INTO issuance.blocked_keys (tenant_id, spki_sha256, certificate_id, blocked_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        [row.tenant_id, spkiSha256OfCertificate(row.certificate_der), row.id, row.revoked_at],
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.blocked_keys');
  }
}
