import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAcmeSchema1766400000000 implements MigrationInterface {
  name = 'CreateAcmeSchema1766400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // External Account Binding keys (RFC 8555 7.3.4): one account at most per key.
    await queryRunner.query(`CREATE TABLE acme.eab_keys (
      key_id text PRIMARY KEY,
      tenant_id text NOT NULL,
      hmac_key bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      bound_account_id uuid UNIQUE,
      disabled_at timestamptz
    )`);
    await queryRunner.query('CREATE INDEX eab_keys_tenant ON acme.eab_keys (tenant_id, created_at)');
    // An account key belongs to one account of one tenant (RFC 8555 7.3.1 looks accounts up by key).
    await queryRunner.query(`CREATE TABLE acme.accounts (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      jwk jsonb NOT NULL,
      thumbprint text NOT NULL,
      status text NOT NULL,
      contact jsonb NOT NULL DEFAULT '[]',
      eab_key_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, thumbprint)
    )`);
    await queryRunner.query(`CREATE TABLE acme.orders (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      account_id uuid NOT NULL REFERENCES acme.accounts (id),
      status text NOT NULL,
      identifiers jsonb NOT NULL,
      expires_at timestamptz NOT NULL,
      error jsonb,
      certificate_id uuid,
      certificate_sha256 text,
      certificate_pem text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await queryRunner.query('CREATE INDEX orders_expiry ON acme.orders (expires_at)');
    await queryRunner.query('CREATE INDEX orders_certificate ON acme.orders (tenant_id, certificate_sha256)');
    await queryRunner.query(`CREATE TABLE acme.authorizations (
      id uuid PRIMARY KEY,
      order_id uuid NOT NULL REFERENCES acme.orders (id) ON DELETE CASCADE,
      identifier text NOT NULL,
      status text NOT NULL,
      expires_at timestamptz NOT NULL
    )`);
    await queryRunner.query('CREATE INDEX authorizations_order ON acme.authorizations (order_id)');
    await queryRunner.query(`CREATE TABLE acme.challenges (
      id uuid PRIMARY KEY,
      authorization_id uuid NOT NULL REFERENCES acme.authorizations (id) ON DELETE CASCADE,
      type text NOT NULL,
      token text NOT NULL,
      status text NOT NULL,
      validated_at timestamptz,
      error jsonb
    )`);
    await queryRunner.query('CREATE INDEX challenges_authorization ON acme.challenges (authorization_id)');
    // Replay nonces (RFC 8555 6.5): each accepted once, until it expires.
    await queryRunner.query(`CREATE TABLE acme.nonces (
      value text PRIMARY KEY,
      expires_at timestamptz NOT NULL
    )`);
    await queryRunner.query('CREATE INDEX nonces_expiry ON acme.nonces (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['nonces', 'challenges', 'authorizations', 'orders', 'accounts', 'eab_keys'])
      await queryRunner.query(`DROP TABLE acme.${table}`);
  }
}
