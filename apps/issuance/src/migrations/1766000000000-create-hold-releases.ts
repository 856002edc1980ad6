import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The history of released holds: releasing a certificateHold clears the revocation on the
 * certificate row, so who held it, when and why, and who released it and why, are kept here.
 */
export class CreateHoldReleases1766000000000 implements MigrationInterface {
  name = 'CreateHoldReleases1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.hold_releases (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      tenant_id uuid NOT NULL,
      certificate_id uuid NOT NULL REFERENCES issuance.certificates (id),
      held_since timestamptz NOT NULL,
      hold_reason text,
      released_at timestamptz NOT NULL,
      released_by text NOT NULL,
      release_reason text
    )`);
    await queryRunner.query(
      'CREATE INDEX hold_releases_by_certificate ON issuance.hold_releases (certificate_id, released_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.hold_releases');
  }
}
