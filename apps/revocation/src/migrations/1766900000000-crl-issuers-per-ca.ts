import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#add-an-issuing-ca: a tenant may have several CAs that sign (or signed) leaves, each
 * a CRL issuer of its own with its own CRLNumber sequence (RFC 5280 5.2.3). Issuers, entries and
 * CRLs are keyed by the CA instead of the tenant. Every tenant had one issuer so far: its rows take
 * that issuer's CA, and its numbering goes on unchanged.
 */
export class CrlIssuersPerCa1766900000000 implements MigrationInterface {
  name = 'CrlIssuersPerCa1766900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['revoked_certificates', 'crls']) {
      await queryRunner.query(`ALTER TABLE revocation.${table} ADD COLUMN ca_id uuid`);
      await queryRunner.query(
        `UPDATE revocation.${table} t SET ca_id = i.ca_id FROM revocation.crl_issuers i WHERE i.tenant_id = t.tenant_id`,
      );
      await queryRunner.query(`ALTER TABLE revocation.${table} ALTER COLUMN ca_id SET NOT NULL`);
      await queryRunner.query(`ALTER TABLE revocation.${table} DROP CONSTRAINT ${table}_tenant_id_fkey`);
    }
    await queryRunner.query(
      'ALTER TABLE revocation.crl_issuers DROP CONSTRAINT crl_issuers_pkey, ADD PRIMARY KEY (ca_id)',
    );
    await queryRunner.query('CREATE INDEX crl_issuers_tenant ON revocation.crl_issuers (tenant_id)');
    await queryRunner.query(
      `ALTER TABLE revocation.revoked_certificates DROP CONSTRAINT revoked_certificates_pkey,
         ADD PRIMARY KEY (ca_id, serial_number),
         ADD CONSTRAINT revoked_certificates_ca_id_fkey FOREIGN KEY (ca_id) REFERENCES revocation.crl_issuers (ca_id)`,
    );
    await queryRunner.query(
      `ALTER TABLE revocation.crls DROP CONSTRAINT crls_pkey, ADD PRIMARY KEY (ca_id, crl_number),
         ADD CONSTRAINT crls_ca_id_fkey FOREIGN KEY (ca_id) REFERENCES revocation.crl_issuers (ca_id)`,
    );
    await queryRunner.query('DROP INDEX revocation.revoked_certificates_recorded_at');
    await queryRunner.query(
      'CREATE INDEX revoked_certificates_recorded_at ON revocation.revoked_certificates (ca_id, recorded_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Back to one issuer per tenant: the CAs added later (and their entries and CRLs) go.
    const added = `SELECT ca_id FROM revocation.crl_issuers i WHERE registered_at >
      (SELECT min(registered_at) FROM revocation.crl_issuers f WHERE f.tenant_id = i.tenant_id)`;
    await queryRunner.query(`DELETE FROM revocation.crls WHERE ca_id IN (${added})`);
    await queryRunner.query(`DELETE FROM revocation.revoked_certificates WHERE ca_id IN (${added})`);
    await queryRunner.query(`DELETE FROM revocation.crl_issuers WHERE ca_id IN (${added})`);
    await queryRunner.query('DROP INDEX revocation.revoked_certificates_recorded_at');
    await queryRunner.query(
      'CREATE INDEX revoked_certificates_recorded_at ON revocation.revoked_certificates (tenant_id, recorded_at)',
    );
    for (const table of ['revoked_certificates', 'crls']) {
      await queryRunner.query(`ALTER TABLE revocation.${table} DROP CONSTRAINT ${table}_ca_id_fkey`);
    }
    await queryRunner.query('DROP INDEX revocation.crl_issuers_tenant');
    await queryRunner.query(
      'ALTER TABLE revocation.crl_issuers DROP CONSTRAINT crl_issuers_pkey, ADD PRIMARY KEY (tenant_id)',
    );
    await queryRunner.query(
      `ALTER TABLE revocation.revoked_certificates DROP CONSTRAINT revoked_certificates_pkey,
         ADD PRIMARY KEY (tenant_id, serial_number), DROP COLUMN ca_id,
         ADD CONSTRAINT revoked_certificates_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES revocation.crl_issuers (tenant_id)`,
    );
    await queryRunner.query(
      `ALTER TABLE revocation.crls DROP CONSTRAINT crls_pkey, ADD PRIMARY KEY (tenant_id, crl_number), DROP COLUMN ca_id,
         ADD CONSTRAINT crls_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES revocation.crl_issuers (tenant_id)`,
    );
  }
}
