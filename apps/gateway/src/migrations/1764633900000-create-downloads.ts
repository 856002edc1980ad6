import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payloads of pre-signed download links (docs/api.md#downloads), sealed with a key that exists only
 * in the link; looked up by a hash of the link's id. Rows go on download (single-use links) or
 * at expiry (housekeeping).
 */
export class CreateDownloads1764633900000 implements MigrationInterface {
  name = 'CreateDownloads1764633900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE gateway.downloads (
      lookup_hash bytea PRIMARY KEY CHECK (octet_length(lookup_hash) = 32),
      kind text NOT NULL CHECK (kind IN ('certificate', 'private-key', 'pkcs12')),
      single_use boolean NOT NULL,
      file_name text NOT NULL,
      iv bytea NOT NULL,
      sealed bytea NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await queryRunner.query(`CREATE INDEX downloads_by_expiry ON gateway.downloads (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE gateway.downloads');
  }
}
