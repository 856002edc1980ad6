import { inboxTableSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What issuance needs to decide for itself instead of trusting its caller (docs/security.md,
 * "Issuance trusts no caller"):
 * - `tenants`: the gateway's `tenant.updated` facts (status, effective plan limit), applied once
 *   each through `inbox` by the durable consumer `issuance`;
 * - `crl_numbers`: the last CRLNumber signed per CA, so no number is signed twice or goes back
 *   (RFC 5280 5.2.3: monotonically increasing);
 * - the principal of every state change on the certificate rows and the CA;
 * - the revoked certificates of a CA in one index, read in full before each CRL is signed.
 */
export class IssuanceTrustsNoCaller1766200000000 implements MigrationInterface {
  name = 'IssuanceTrustsNoCaller1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.tenants (
      tenant_id uuid PRIMARY KEY,
      status text NOT NULL CHECK (status IN ('active', 'suspended')),
      certificate_limit integer NOT NULL CHECK (certificate_limit >= 0),
      updated_at timestamptz NOT NULL
    )`);
    for (const sql of inboxTableSql('issuance')) await queryRunner.query(sql);
    await queryRunner.query(`CREATE TABLE issuance.crl_numbers (
      ca_id uuid PRIMARY KEY REFERENCES issuance.certificate_authorities (id),
      last_crl_number numeric(49, 0) NOT NULL,
      signed_at timestamptz NOT NULL
    )`);
    await queryRunner.query(`ALTER TABLE issuance.certificates
      ADD COLUMN issued_by text,
      ADD COLUMN revoked_by text`);
    await queryRunner.query('ALTER TABLE issuance.certificate_authorities ADD COLUMN created_by text');
    await queryRunner.query(
      `CREATE INDEX certificates_revoked_by_ca ON issuance.certificates (ca_id)
         INCLUDE (serial_number, revoked_at, revocation_reason_code) WHERE revoked_at IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX issuance.certificates_revoked_by_ca');
    await queryRunner.query('ALTER TABLE issuance.certificate_authorities DROP COLUMN created_by');
    await queryRunner.query(
      'ALTER TABLE issuance.certificates DROP COLUMN issued_by, DROP COLUMN revoked_by',
    );
    await queryRunner.query('DROP TABLE issuance.crl_numbers');
    await queryRunner.query('DROP TABLE issuance.inbox');
    await queryRunner.query('DROP TABLE issuance.tenants');
  }
}
