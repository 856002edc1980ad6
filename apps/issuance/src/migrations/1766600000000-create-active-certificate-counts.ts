import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The plan limit's counter row per tenant (docs/architecture.md#plan-limit-counter), so admitting
 * an issuance no longer counts every Active certificate under the tenant's lock.
 *
 * `unrevoked` is, exactly, the number of the tenant's certificates that are not revoked and whose
 * notAfter is after `counted_after`. A trigger keeps it in the transaction of every insert and of
 * every change of `revoked_at` (issue, renew, revoke, hold, release). Expiry needs no writer: under
 * the lock, issuance subtracts the unrevoked certificates whose notAfter lies between
 * `counted_after` and now (an indexed range, only what expired since the tenant's last admission)
 * and moves `counted_after` to now (lockAndReadStandings).
 */
/** The per-row trigger function (replaced by per-statement ones; kept for their `down`). */
export const COUNT_ACTIVE_CERTIFICATES = `CREATE FUNCTION issuance.count_active_certificates() RETURNS trigger
      LANGUAGE plpgsql AS $$
      DECLARE
        delta int := 0;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.revoked_at IS NULL THEN delta := 1; END IF;
        ELSIF (OLD.revoked_at IS NULL) <> (NEW.revoked_at IS NULL) THEN
          delta := CASE WHEN NEW.revoked_at IS NULL THEN 1 ELSE -1 END;
        END IF;
        IF delta = 0 THEN RETURN NULL; END IF;
        INSERT INTO issuance.active_certificate_counts AS k (tenant_id, unrevoked, counted_after)
          VALUES (NEW.tenant_id, GREATEST(delta, 0), '-infinity')
          ON CONFLICT (tenant_id) DO UPDATE SET unrevoked = k.unrevoked + delta
          WHERE k.counted_after < NEW.not_after;
        RETURN NULL;
      END
      $$`;

export const CERTIFICATES_COUNT_ACTIVE = `CREATE TRIGGER certificates_count_active
      AFTER INSERT OR UPDATE OF revoked_at ON issuance.certificates
      FOR EACH ROW EXECUTE FUNCTION issuance.count_active_certificates()`;

export class CreateActiveCertificateCounts1766600000000 implements MigrationInterface {
  name = 'CreateActiveCertificateCounts1766600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.active_certificate_counts (
      tenant_id uuid PRIMARY KEY,
      unrevoked bigint NOT NULL CHECK (unrevoked >= 0),
      counted_after timestamptz NOT NULL
    )`);
    // A change that does not move the row across `counted_after` leaves the count alone: the
    // WHERE is evaluated again on the row as it is after a concurrent admission committed.
    await queryRunner.query(COUNT_ACTIVE_CERTIFICATES);
    await queryRunner.query(CERTIFICATES_COUNT_ACTIVE);
    // No certificate changes while the counts are taken: they and the trigger start together.
    await queryRunner.query('LOCK TABLE issuance.certificates IN SHARE MODE');
    await queryRunner.query(`INSERT INTO issuance.active_certificate_counts (tenant_id, unrevoked, counted_after)
      SELECT tenant_id, count(*) FILTER (WHERE revoked_at IS NULL AND not_after > now()), now()
        FROM issuance.certificates GROUP BY tenant_id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER certificates_count_active ON issuance.certificates');
    await queryRunner.query('DROP FUNCTION issuance.count_active_certificates()');
    await queryRunner.query('DROP TABLE issuance.active_certificate_counts');
  }
}
