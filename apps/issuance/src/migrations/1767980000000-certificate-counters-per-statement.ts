import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  CERTIFICATES_COUNT_ACTIVE,
  COUNT_ACTIVE_CERTIFICATES,
} from './1766600000000-create-active-certificate-counts';
import { CERTIFICATES_COUNT_INVENTORY, COUNT_INVENTORY } from './1767960000000-create-inventory-counts';

/**
 * The certificate counters (the plan limit's `active_certificate_counts`, the summary's
 * `inventory_counts`) kept by one trigger run per statement instead of one per row: a bulk
 * revocation's `UPDATE` of 256 certificates ran 512 trigger calls (about half of that statement's
 * time), a group commit of 8 issues 16. Each statement now adds up the rows it changed (the
 * transition tables) and writes each counter row once, in key order where it makes rows.
 *
 * Same counts as the per-row triggers they replace (docs/architecture.md#plan-limit-counter,
 * docs/architecture.md#inventory-counts). Transition tables allow one event per trigger and no
 * column list, so there is a trigger per event, and an `UPDATE` that changes none of the counted
 * columns finds nothing to add. Triggers of one event fire in name order: a writer holds the
 * tenant's plan-limit row before it writes the tenant's inventory rows, as before.
 */
export class CertificateCountersPerStatement1767980000000 implements MigrationInterface {
  name = 'CertificateCountersPerStatement1767980000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER certificates_count_active ON issuance.certificates');
    await queryRunner.query('DROP TRIGGER certificates_count_inventory ON issuance.certificates');
    await queryRunner.query('DROP FUNCTION issuance.count_active_certificates()');
    await queryRunner.query('DROP FUNCTION issuance.count_inventory()');

    // `unrevoked` counts the tenant's unrevoked certificates whose notAfter is after
    // `counted_after`: a change counts only past it, read from the counter row once it is locked
    // (after a concurrent admission committed).
    await queryRunner.query(`CREATE FUNCTION issuance.count_active_inserted() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO issuance.active_certificate_counts AS k (tenant_id, unrevoked, counted_after)
          SELECT tenant_id, count(*), '-infinity' FROM inserted
           WHERE revoked_at IS NULL GROUP BY tenant_id ORDER BY tenant_id
          ON CONFLICT (tenant_id) DO UPDATE SET unrevoked = k.unrevoked + (
            SELECT count(*) FROM inserted n
             WHERE n.tenant_id = k.tenant_id AND n.revoked_at IS NULL AND n.not_after > k.counted_after);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`CREATE FUNCTION issuance.count_active_updated() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        WITH flipped AS (
          SELECT n.tenant_id, n.not_after, CASE WHEN n.revoked_at IS NULL THEN 1 ELSE -1 END AS delta
            FROM updated_new n JOIN updated_old o ON o.id = n.id
           WHERE (o.revoked_at IS NULL) <> (n.revoked_at IS NULL))
        INSERT INTO issuance.active_certificate_counts AS k (tenant_id, unrevoked, counted_after)
          SELECT tenant_id, GREATEST(sum(delta), 0), '-infinity' FROM flipped
           GROUP BY tenant_id ORDER BY tenant_id
          ON CONFLICT (tenant_id) DO UPDATE SET unrevoked = k.unrevoked + (
            SELECT coalesce(sum(f.delta), 0) FROM flipped f
             WHERE f.tenant_id = k.tenant_id AND f.not_after > k.counted_after);
        RETURN NULL;
      END
      $$`);

    // Per tenant and UTC day of notAfter, how many are unrevoked and how many revoked.
    await queryRunner.query(`CREATE FUNCTION issuance.count_inventory_inserted() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO issuance.inventory_counts AS k (tenant_id, expiry_day, unrevoked, revoked)
          SELECT tenant_id, (not_after AT TIME ZONE 'UTC')::date,
                 count(*) FILTER (WHERE revoked_at IS NULL), count(*) FILTER (WHERE revoked_at IS NOT NULL)
            FROM inserted GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (tenant_id, expiry_day) DO UPDATE
            SET unrevoked = k.unrevoked + EXCLUDED.unrevoked, revoked = k.revoked + EXCLUDED.revoked;
        RETURN NULL;
      END
      $$`);
    // Only rows whose tenant, day or revocation state changed move: each (tenant, day) row gets its
    // net change, and a day that only gains certificates may have no row yet, made then. A day
    // that loses any has its row, so no row is ever made negative.
    await queryRunner.query(`CREATE FUNCTION issuance.count_inventory_updated() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        WITH moved AS (
          SELECT o.tenant_id AS old_tenant, (o.not_after AT TIME ZONE 'UTC')::date AS old_day,
                 (o.revoked_at IS NULL)::int AS old_unrevoked,
                 n.tenant_id AS new_tenant, (n.not_after AT TIME ZONE 'UTC')::date AS new_day,
                 (n.revoked_at IS NULL)::int AS new_unrevoked
            FROM updated_new n JOIN updated_old o ON o.id = n.id
           WHERE o.tenant_id <> n.tenant_id OR (o.revoked_at IS NULL) <> (n.revoked_at IS NULL)
              OR (o.not_after AT TIME ZONE 'UTC')::date <> (n.not_after AT TIME ZONE 'UTC')::date),
        net AS (
          SELECT tenant_id, expiry_day, sum(unrevoked) AS unrevoked, sum(revoked) AS revoked FROM (
            SELECT old_tenant, old_day, -old_unrevoked, old_unrevoked - 1 FROM moved
            UNION ALL
            SELECT new_tenant, new_day, new_unrevoked, 1 - new_unrevoked FROM moved
          ) AS change (tenant_id, expiry_day, unrevoked, revoked)
          GROUP BY 1, 2)
        UPDATE issuance.inventory_counts k
           SET unrevoked = k.unrevoked + net.unrevoked, revoked = k.revoked + net.revoked
          FROM net
         WHERE k.tenant_id = net.tenant_id AND k.expiry_day = net.expiry_day
           AND (net.unrevoked <> 0 OR net.revoked <> 0);
        INSERT INTO issuance.inventory_counts AS k (tenant_id, expiry_day, unrevoked, revoked)
          SELECT n.tenant_id, (n.not_after AT TIME ZONE 'UTC')::date,
                 count(*) FILTER (WHERE n.revoked_at IS NULL), count(*) FILTER (WHERE n.revoked_at IS NOT NULL)
            FROM updated_new n JOIN updated_old o ON o.id = n.id
           WHERE (o.tenant_id <> n.tenant_id OR (o.revoked_at IS NULL) <> (n.revoked_at IS NULL)
              OR (o.not_after AT TIME ZONE 'UTC')::date <> (n.not_after AT TIME ZONE 'UTC')::date)
             AND NOT EXISTS (SELECT 1 FROM issuance.inventory_counts c
                              WHERE c.tenant_id = n.tenant_id
                                AND c.expiry_day = (n.not_after AT TIME ZONE 'UTC')::date)
           GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (tenant_id, expiry_day) DO UPDATE
            SET unrevoked = k.unrevoked + EXCLUDED.unrevoked, revoked = k.revoked + EXCLUDED.revoked;
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`CREATE FUNCTION issuance.count_inventory_deleted() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE issuance.inventory_counts k
           SET unrevoked = k.unrevoked - gone.unrevoked, revoked = k.revoked - gone.revoked
          FROM (SELECT tenant_id, (not_after AT TIME ZONE 'UTC')::date AS expiry_day,
                       count(*) FILTER (WHERE revoked_at IS NULL) AS unrevoked,
                       count(*) FILTER (WHERE revoked_at IS NOT NULL) AS revoked
                  FROM deleted GROUP BY 1, 2) gone
         WHERE k.tenant_id = gone.tenant_id AND k.expiry_day = gone.expiry_day;
        RETURN NULL;
      END
      $$`);

    for (const [name, event, transition, fn] of TRIGGERS) {
      await queryRunner.query(`CREATE TRIGGER ${name} AFTER ${event} ON issuance.certificates
        REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION issuance.${fn}()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name, , , fn] of TRIGGERS) {
      await queryRunner.query(`DROP TRIGGER ${name} ON issuance.certificates`);
      await queryRunner.query(`DROP FUNCTION issuance.${fn}()`);
    }
    for (const sql of [
      COUNT_ACTIVE_CERTIFICATES,
      CERTIFICATES_COUNT_ACTIVE,
      COUNT_INVENTORY,
      CERTIFICATES_COUNT_INVENTORY,
    ])
      await queryRunner.query(sql);
  }
}

/** Name, event, transition tables and function of each trigger, in the order they fire per event. */
const TRIGGERS = [
  ['certificates_count_active_inserted', 'INSERT', 'NEW TABLE AS inserted', 'count_active_inserted'],
  [
    'certificates_count_active_updated',
    'UPDATE',
    'OLD TABLE AS updated_old NEW TABLE AS updated_new',
    'count_active_updated',
  ],
  ['certificates_count_inventory_inserted', 'INSERT', 'NEW TABLE AS inserted', 'count_inventory_inserted'],
  [
    'certificates_count_inventory_updated',
    'UPDATE',
    'OLD TABLE AS updated_old NEW TABLE AS updated_new',
    'count_inventory_updated',
  ],
  ['certificates_count_inventory_deleted', 'DELETE', 'OLD TABLE AS deleted', 'count_inventory_deleted'],
] as const;
