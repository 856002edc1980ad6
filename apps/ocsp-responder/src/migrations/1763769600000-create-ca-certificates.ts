import { inboxTableSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCaCertificates1763769600000 implements MigrationInterface {
  name = 'CreateCaCertificates1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE ocsp.ca_certificates (
      tenant_id uuid PRIMARY KEY,
      ca_id uuid NOT NULL,
      certificate_der bytea NOT NULL,
      not_after timestamptz NOT NULL,
      published_at timestamptz NOT NULL
    )`);
    for (const sql of inboxTableSql('ocsp')) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ocsp.inbox');
    await queryRunner.query('DROP TABLE ocsp.ca_certificates');
  }
}
