import { outboxTableSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCertificateAuthorities1763769600000 implements MigrationInterface {
  name = 'CreateCertificateAuthorities1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.certificate_authorities (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      common_name text NOT NULL,
      organization text NOT NULL,
      country char(2) NOT NULL,
      serial_number text NOT NULL,
      certificate_der bytea NOT NULL,
      not_before timestamptz NOT NULL,
      not_after timestamptz NOT NULL,
      key_custody text NOT NULL,
      key_algorithm text NOT NULL,
      public_key_spki bytea NOT NULL,
      wrapped_key bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      -- docs/api.md#initialize-the-ca: a tenant has at most one CA; the database enforces it under concurrency.
      CONSTRAINT certificate_authorities_one_per_tenant UNIQUE (tenant_id)
    )`);
    for (const sql of outboxTableSql('issuance')) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.outbox');
    await queryRunner.query('DROP TABLE issuance.certificate_authorities');
  }
}
