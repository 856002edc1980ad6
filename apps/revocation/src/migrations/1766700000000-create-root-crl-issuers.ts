import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#distribution-points: the root's CRL (`root.crl`) of a tenant with an issuing CA.
 * The root is a CRL issuer of its own, with its own CRLNumber sequence (RFC 5280 5.2.3), and its
 * entries are the revoked issuing CAs. Tiny and rarely changing, so the newest CRL's nextUpdate
 * is kept on the issuer row rather than in a table of CRLs.
 */
export class CreateRootCrlIssuers1766700000000 implements MigrationInterface {
  name = 'CreateRootCrlIssuers1766700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE revocation.root_crl_issuers (
      tenant_id uuid PRIMARY KEY,
      ca_id uuid NOT NULL,
      ca_certificate_der bytea NOT NULL,
      ca_not_after timestamptz NOT NULL,
      next_crl_number bigint NOT NULL DEFAULT 1,
      next_update timestamptz,
      entry_count integer NOT NULL DEFAULT 0
    )`);
    await queryRunner.query(`CREATE TABLE revocation.revoked_cas (
      tenant_id uuid NOT NULL REFERENCES revocation.root_crl_issuers (tenant_id),
      serial_number text NOT NULL,
      ca_id uuid NOT NULL,
      revocation_date timestamptz NOT NULL,
      reason_code smallint NOT NULL,
      PRIMARY KEY (tenant_id, serial_number)
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE revocation.revoked_cas');
    await queryRunner.query('DROP TABLE revocation.root_crl_issuers');
  }
}
