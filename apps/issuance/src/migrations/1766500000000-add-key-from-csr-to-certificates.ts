import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether a certificate was issued for the caller's CSR (docs/api.md#csr-issuance): such a
 * certificate is renewed with a CSR only, as the CA never had its key. Existing rows were all
 * issued for keys the gateway made.
 */
export class AddKeyFromCsrToCertificates1766500000000 implements MigrationInterface {
  name = 'AddKeyFromCsrToCertificates1766500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE issuance.certificates ADD COLUMN key_from_csr boolean NOT NULL DEFAULT false',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.certificates DROP COLUMN key_from_csr');
  }
}
