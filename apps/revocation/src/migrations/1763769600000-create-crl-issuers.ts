import { inboxTableSql, outboxTableSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCrlIssuers1763769600000 implements MigrationInterface {
  name = 'CreateCrlIssuers1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One CRL issuer per tenant CA; `next_crl_number` is the monotonic CRLNumber (RFC 5280 5.2.3).
    await queryRunner.query(`CREATE TABLE revocation.crl_issuers (
      tenant_id uuid PRIMARY KEY,
      ca_id uuid NOT NULL,
      ca_certificate_der bytea NOT NULL,
      ca_not_after timestamptz NOT NULL,
      next_crl_number bigint NOT NULL DEFAULT 1,
      registered_at timestamptz NOT NULL DEFAULT now()
    )`);
    for (const sql of [...inboxTableSql('revocation'), ...outboxTableSql('revocation')])
      await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE revocation.outbox');
    await queryRunner.query('DROP TABLE revocation.inbox');
    await queryRunner.query('DROP TABLE revocation.crl_issuers');
  }
}
