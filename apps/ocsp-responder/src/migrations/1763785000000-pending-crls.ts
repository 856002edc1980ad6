import { MigrationInterface, QueryRunner } from 'typeorm';

export class PendingCrls1763785000000 implements MigrationInterface {
  name = 'PendingCrls1763785000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The newest announced CRL per tenant not yet copied into ocsp.crls (crls/crl.store.ts): the
    // event only records it, the copy (a blob of megabytes) happens off the event consumer.
    await queryRunner.query(`CREATE TABLE ocsp.pending_crls (
      tenant_id uuid PRIMARY KEY,
      crl_number numeric(49, 0) NOT NULL,
      this_update timestamptz NOT NULL,
      next_update timestamptz NOT NULL,
      blob_ref text NOT NULL,
      sha256 text NOT NULL
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ocsp.pending_crls');
  }
}
