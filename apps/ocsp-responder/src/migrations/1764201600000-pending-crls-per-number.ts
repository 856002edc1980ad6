import { MigrationInterface, QueryRunner } from 'typeorm';

export class PendingCrlsPerNumber1764201600000 implements MigrationInterface {
  name = 'PendingCrlsPerNumber1764201600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Every announced CRL waits for its check (crls/crl.store.ts), not only the highest-numbered:
    // a forged announcement (a huge number, or the genuine number with other bytes) must not push
    // the genuine one aside.
    await queryRunner.query('ALTER TABLE ocsp.pending_crls DROP CONSTRAINT pending_crls_pkey');
    await queryRunner.query('ALTER TABLE ocsp.pending_crls ADD PRIMARY KEY (tenant_id, crl_number, sha256)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DELETE FROM ocsp.pending_crls p WHERE EXISTS (SELECT 1 FROM ocsp.pending_crls q
         WHERE q.tenant_id = p.tenant_id AND q.crl_number > p.crl_number)`,
    );
    await queryRunner.query('ALTER TABLE ocsp.pending_crls DROP CONSTRAINT pending_crls_pkey');
    await queryRunner.query('ALTER TABLE ocsp.pending_crls ADD PRIMARY KEY (tenant_id)');
  }
}
