import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#search-certificates `source`: how each certificate's key reached the CA (`api`,
 * `csr`, `acme`). Adding a column with a constant default rewrites no row; the backfill touches
 * only CSR and ACME rows. ACME certificates were stored as if the service had made their key: they
 * are marked as CSR-keyed now, so a renewal asks for a CSR instead of handing out a new key.
 * Also the key that signs list cursors, made once per database by issuance (never by SQL).
 */
export class AddSourceToCertificates1767800000000 implements MigrationInterface {
  name = 'AddSourceToCertificates1767800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE issuance.certificates ADD COLUMN source text NOT NULL DEFAULT 'api'
         CHECK (source IN ('api', 'csr', 'acme'))`,
    );
    await queryRunner.query(`UPDATE issuance.certificates SET source = 'csr' WHERE key_from_csr`);
    await queryRunner.query(
      `UPDATE issuance.certificates SET source = 'acme', key_from_csr = true
        WHERE issued_by LIKE 'acme:%' AND client_id = issued_by`,
    );
    // What `q` searches, as one immutable expression an index can hold; chr(1) (refused in `q`)
    // keeps one field's end and the next one's start from matching together.
    await queryRunner.query(
      `CREATE FUNCTION issuance.inventory_search_text(common_name text, client_id text, serial_number text, dns_names text[])
         RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
         AS $$ SELECT lower(common_name || chr(1) || client_id || chr(1) || serial_number || chr(1) || array_to_string(dns_names, chr(1))) $$`,
    );
    await queryRunner.query(
      `CREATE TABLE issuance.inventory_cursor_key (
         id boolean PRIMARY KEY DEFAULT true CHECK (id),
         key bytea NOT NULL)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.inventory_cursor_key');
    await queryRunner.query('DROP FUNCTION issuance.inventory_search_text');
    await queryRunner.query('ALTER TABLE issuance.certificates DROP COLUMN source');
  }
}
