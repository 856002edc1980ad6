import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OCSP signer keys this responder (any replica) asked issuance to certify, by the SHA-256 of
 * their SubjectPublicKeyInfo, recorded before asking: an `ocsp-signer.certified` for any other key
 * is a signer the responder never asked for (docs/security.md, "OCSP signer certificates").
 */
export class RequestedSigners1767620000000 implements MigrationInterface {
  name = 'RequestedSigners1767620000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE ocsp.requested_signers (
      public_key_sha256 text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ocsp.requested_signers');
  }
}
