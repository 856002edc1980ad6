import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * RFC 6960 4.1.1: a CertID is an issuer and a serial, so a status row names the CA that issued the
 * certificate (from `certificate.issued`), and a CertID naming another CA of the tenant answers
 * `unknown` (docs/api.md#add-an-issuing-ca). Every tenant had one CA signing leaves so far: its
 * rows take that CA.
 */
export class CertificateStatusCa1767000000000 implements MigrationInterface {
  name = 'CertificateStatusCa1767000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.certificate_status ADD COLUMN ca_id uuid');
    await queryRunner.query(
      `UPDATE ocsp.certificate_status s SET ca_id = c.ca_id FROM ocsp.ca_certificates c
        WHERE c.tenant_id = s.tenant_id`,
    );
    await queryRunner.query('ALTER TABLE ocsp.certificate_status ALTER COLUMN ca_id SET NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.certificate_status DROP COLUMN ca_id');
  }
}
