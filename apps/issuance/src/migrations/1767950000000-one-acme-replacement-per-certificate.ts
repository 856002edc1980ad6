import { MigrationInterface, QueryRunner } from 'typeorm';

/** The unique index that lets a certificate be named in ACME `replaces` by one issued certificate only. */
export const ONE_ACME_REPLACEMENT_INDEX = 'certificates_one_acme_replacement_idx';

/**
 * docs/api.md#renewal-information: a certificate is replaced once (RFC 9773 5, `alreadyReplaced`).
 * The check before signing cannot see an order finalized at the same moment; this index makes the
 * second one's insert fail, so exactly one of two concurrent finalizes gets the certificate. Admin
 * API renewals (source `api`, `csr`) may still follow each other, as before.
 */
export class OneAcmeReplacementPerCertificate1767950000000 implements MigrationInterface {
  name = 'OneAcmeReplacementPerCertificate1767950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNIQUE INDEX ${ONE_ACME_REPLACEMENT_INDEX} ON issuance.certificates (renewed_from)
         WHERE source = 'acme' AND renewed_from IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX issuance.${ONE_ACME_REPLACEMENT_INDEX}`);
  }
}
