import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCertificates1763769700000 implements MigrationInterface {
  name = 'CreateCertificates1763769700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.certificates (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      ca_id uuid NOT NULL REFERENCES issuance.certificate_authorities (id),
      serial_number text NOT NULL,
      client_id text NOT NULL,
      common_name text NOT NULL,
      organization text NOT NULL,
      organizational_unit text NOT NULL,
      country char(2) NOT NULL,
      certificate_der bytea NOT NULL,
      not_before timestamptz NOT NULL,
      not_after timestamptz NOT NULL,
      issued_at timestamptz NOT NULL,
      renewed_from uuid REFERENCES issuance.certificates (id),
      revoked_at timestamptz,
      revocation_reason text,
      revocation_reason_code smallint,
      -- RFC 5280 4.1.2.2: a serial is unique per issuing CA; a random collision is retried.
      CONSTRAINT certificates_serial_per_ca UNIQUE (ca_id, serial_number)
    )`);
    // List (newest first) and expiring (soonest first, unrevoked) stay index scans at 100k+ per tenant.
    await queryRunner.query(
      `CREATE INDEX certificates_by_tenant_issued ON issuance.certificates (tenant_id, issued_at DESC, id)`,
    );
    await queryRunner.query(
      `CREATE INDEX certificates_unrevoked_by_expiry ON issuance.certificates (tenant_id, not_after) WHERE revoked_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.certificates');
  }
}
