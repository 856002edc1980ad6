import { MigrationInterface, QueryRunner } from 'typeorm';

/** One CRL builder per tenant across replicas (CrlBuildLease; docs/operations.md, Running replicas). */
export class AddBuildLeaseToCrlIssuers1766300100000 implements MigrationInterface {
  name = 'AddBuildLeaseToCrlIssuers1766300100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE revocation.crl_issuers ADD COLUMN build_lease_owner uuid, ADD COLUMN build_lease_until timestamptz',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE revocation.crl_issuers DROP COLUMN build_lease_owner, DROP COLUMN build_lease_until',
    );
  }
}
