import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The arc n of `1.3.6.1.4.1.99999.2.n` each custom-extension key of a tenant was given on first use,
 * so a key keeps its OID across certificates and renewals. Two unique constraints make concurrent
 * first uses safe: a key gets one arc, an arc one key. Keys already in certificates are numbered in
 * the order they first appeared (then by key, the order they were written in), so a tenant that
 * always sent the same keys keeps the OIDs its certificates already carry.
 */
export class CreateCustomExtensionArcs1764900000000 implements MigrationInterface {
  name = 'CreateCustomExtensionArcs1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.custom_extension_arcs (
      tenant_id uuid NOT NULL,
      key text NOT NULL,
      arc integer NOT NULL CHECK (arc > 0),
      assigned_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, key),
      UNIQUE (tenant_id, arc)
    )`);
    await queryRunner.query(`INSERT INTO issuance.custom_extension_arcs (tenant_id, key, arc)
      SELECT tenant_id, key, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY first_issued_at, key)
      FROM (
        SELECT c.tenant_id, e.entry->>'key' AS key, MIN(c.issued_at) AS first_issued_at
        FROM issuance.certificates c
        CROSS JOIN LATERAL jsonb_array_elements(c.custom_extensions) AS e(entry)
        GROUP BY c.tenant_id, e.entry->>'key'
      ) AS first_uses`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE issuance.custom_extension_arcs`);
  }
}
