import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#certificate-summary without counting the inventory: per tenant and per UTC day of
 * notAfter, how many certificates are unrevoked and how many revoked. A trigger keeps the row of
 * a certificate's day in the transaction of every insert and of every change of its revocation
 * (or notAfter), so the counts are exact whenever read. The summary adds the days after a bound
 * and counts, in the partial index of unrevoked certificates by expiry, only those of the bound's
 * own day (docs/architecture.md#inventory-counts): a few hundred rows, whatever the tenant holds.
 *
 * The counts are taken under a SHARE lock on the certificates (writes wait; reads go on), so the
 * trigger and the first counts start together; on millions of rows that is seconds.
 */
/** The per-row trigger function (replaced by per-statement ones; kept for their `down`). */
export const COUNT_INVENTORY = `CREATE FUNCTION issuance.count_inventory() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.tenant_id = NEW.tenant_id
           AND (OLD.not_after AT TIME ZONE 'UTC')::date = (NEW.not_after AT TIME ZONE 'UTC')::date
           AND (OLD.revoked_at IS NULL) = (NEW.revoked_at IS NULL) THEN
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          UPDATE issuance.inventory_counts
             SET unrevoked = unrevoked - (OLD.revoked_at IS NULL)::int,
                 revoked = revoked - (OLD.revoked_at IS NOT NULL)::int
           WHERE tenant_id = OLD.tenant_id AND expiry_day = (OLD.not_after AT TIME ZONE 'UTC')::date;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          INSERT INTO issuance.inventory_counts AS k (tenant_id, expiry_day, unrevoked, revoked)
            VALUES (NEW.tenant_id, (NEW.not_after AT TIME ZONE 'UTC')::date,
                    (NEW.revoked_at IS NULL)::int, (NEW.revoked_at IS NOT NULL)::int)
            ON CONFLICT (tenant_id, expiry_day) DO UPDATE
              SET unrevoked = k.unrevoked + EXCLUDED.unrevoked, revoked = k.revoked + EXCLUDED.revoked;
        END IF;
        RETURN NULL;
      END
      $$`;

export const CERTIFICATES_COUNT_INVENTORY = `CREATE TRIGGER certificates_count_inventory
      AFTER INSERT OR DELETE OR UPDATE OF tenant_id, not_after, revoked_at ON issuance.certificates
      FOR EACH ROW EXECUTE FUNCTION issuance.count_inventory()`;

export class CreateInventoryCounts1767960000000 implements MigrationInterface {
  name = 'CreateInventoryCounts1767960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.inventory_counts (
      tenant_id uuid NOT NULL,
      expiry_day date NOT NULL,
      unrevoked bigint NOT NULL CHECK (unrevoked >= 0),
      revoked bigint NOT NULL CHECK (revoked >= 0),
      PRIMARY KEY (tenant_id, expiry_day)
    )`);
    // The old row's day loses it, the new row's day gains it; a change that moves neither the day
    // nor the revocation state writes nothing. Every writer of a tenant's certificates holds its
    // plan-limit counter row first (certificates_count_active fires before this trigger, and an
    // issuance locks it before inserting), so these rows are locked in one order per tenant.
    await queryRunner.query(COUNT_INVENTORY);
    // Counted again from the certificates: by this migration, and by a bulk load that ran with the
    // triggers off (bench/inventory.ts). Writers wait while it runs.
    await queryRunner.query(`CREATE FUNCTION issuance.recount_inventory() RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        LOCK TABLE issuance.certificates IN SHARE MODE;
        DELETE FROM issuance.inventory_counts;
        INSERT INTO issuance.inventory_counts (tenant_id, expiry_day, unrevoked, revoked)
          SELECT tenant_id, (not_after AT TIME ZONE 'UTC')::date,
                 count(*) FILTER (WHERE revoked_at IS NULL), count(*) FILTER (WHERE revoked_at IS NOT NULL)
            FROM issuance.certificates GROUP BY 1, 2;
      END
      $$`);
    await queryRunner.query(CERTIFICATES_COUNT_INVENTORY);
    await queryRunner.query('SELECT issuance.recount_inventory()');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER certificates_count_inventory ON issuance.certificates');
    await queryRunner.query('DROP FUNCTION issuance.recount_inventory()');
    await queryRunner.query('DROP FUNCTION issuance.count_inventory()');
    await queryRunner.query('DROP TABLE issuance.inventory_counts');
  }
}
