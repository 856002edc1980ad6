import { MigrationInterface, QueryRunner } from 'typeorm';

/** v2 issuance (docs/api.md#issue-a-certificate-v2): usage, SANs, must-staple and custom extensions, kept for renewal. */
export class AddV2ProfileToCertificates1763769900000 implements MigrationInterface {
  name = 'AddV2ProfileToCertificates1763769900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE issuance.certificates
      ADD COLUMN usage text NOT NULL DEFAULT 'Client',
      ADD COLUMN dns_names text[] NOT NULL DEFAULT '{}',
      ADD COLUMN must_staple boolean NOT NULL DEFAULT false,
      ADD COLUMN custom_extensions jsonb NOT NULL DEFAULT '[]'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE issuance.certificates
      DROP COLUMN usage, DROP COLUMN dns_names, DROP COLUMN must_staple, DROP COLUMN custom_extensions`);
  }
}
