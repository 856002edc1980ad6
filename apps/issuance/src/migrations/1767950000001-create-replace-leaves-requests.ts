import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#replace-now: each replace-now request as it was made (who, when, why, how many
 * leaves it marked), kept as revocation reasons are: the free-text reason stays here, never in an
 * event or a webhook.
 */
export class CreateReplaceLeavesRequests1767950000001 implements MigrationInterface {
  name = 'CreateReplaceLeavesRequests1767950000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.replace_leaves_requests (
      event_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      ca_id uuid NOT NULL,
      requested_at timestamptz NOT NULL,
      requested_by text NOT NULL,
      reason text NOT NULL,
      marked integer NOT NULL
    )`);
    await queryRunner.query(
      'CREATE INDEX replace_leaves_requests_by_ca ON issuance.replace_leaves_requests (tenant_id, ca_id, requested_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.replace_leaves_requests');
  }
}
