import { inboxRetentionIndexSql, inboxTableSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooksSchema1767100000000 implements MigrationInterface {
  name = 'CreateWebhooksSchema1767100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [...inboxTableSql('webhooks'), inboxRetentionIndexSql('webhooks')])
      await queryRunner.query(sql);
    // A tenant's subscriptions; the signing secret only sealed under the context's KEK.
    await queryRunner.query(`CREATE TABLE webhooks.subscriptions (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      url text NOT NULL,
      events text[] NOT NULL,
      expiring_days integer[] NOT NULL,
      sealed_secret bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`);
    await queryRunner.query(
      'CREATE INDEX subscriptions_tenant ON webhooks.subscriptions (tenant_id) WHERE deleted_at IS NULL',
    );
    // The read model of the certificates watched for expiry, from certificate.issued / revoked.
    await queryRunner.query(`CREATE TABLE webhooks.certificates (
      certificate_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      serial_number text NOT NULL,
      common_name text,
      client_id text,
      subject_alternative_names text[] NOT NULL DEFAULT '{}',
      not_after timestamptz NOT NULL,
      revoked_at timestamptz,
      renewed_by uuid,
      expired_announced boolean NOT NULL DEFAULT false
    )`);
    await queryRunner.query(
      `CREATE INDEX certificates_watched ON webhooks.certificates (not_after)
       WHERE revoked_at IS NULL AND NOT expired_announced`,
    );
    await queryRunner.query(
      'CREATE INDEX certificates_tenant ON webhooks.certificates (tenant_id, not_after)',
    );
    // Thresholds of a subscription already announced for a certificate: each at most once.
    await queryRunner.query(`CREATE TABLE webhooks.expiry_notices (
      subscription_id uuid NOT NULL REFERENCES webhooks.subscriptions (id) ON DELETE CASCADE,
      certificate_id uuid NOT NULL,
      threshold_days integer NOT NULL,
      PRIMARY KEY (subscription_id, certificate_id, threshold_days)
    )`);
    // One row per event and subscription: its webhook-id, body and delivery state. Messages of one
    // (subscription, order_key) go out in seq order; order_key is the certificate (or CA) concerned.
    await queryRunner.query(`CREATE TABLE webhooks.messages (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL,
      subscription_id uuid NOT NULL REFERENCES webhooks.subscriptions (id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      type text NOT NULL,
      order_key text NOT NULL,
      body text NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      claimed_by text,
      claimed_until timestamptz,
      finished_at timestamptz
    )`);
    await queryRunner.query(
      `CREATE INDEX messages_due ON webhooks.messages (next_attempt_at, seq) WHERE status = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX messages_order ON webhooks.messages (subscription_id, order_key, seq) WHERE status = 'pending'`,
    );
    await queryRunner.query('CREATE INDEX messages_finished ON webhooks.messages (finished_at)');
    // The delivery log: every attempt, kept for a while (housekeeping).
    await queryRunner.query(`CREATE TABLE webhooks.attempts (
      id bigserial PRIMARY KEY,
      message_id uuid NOT NULL,
      subscription_id uuid NOT NULL REFERENCES webhooks.subscriptions (id) ON DELETE CASCADE,
      type text NOT NULL,
      attempt integer NOT NULL,
      status_code integer,
      duration_ms integer NOT NULL,
      at timestamptz NOT NULL DEFAULT now(),
      error text
    )`);
    await queryRunner.query('CREATE INDEX attempts_subscription ON webhooks.attempts (subscription_id, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['attempts', 'messages', 'expiry_notices', 'certificates', 'subscriptions', 'inbox'])
      await queryRunner.query(`DROP TABLE webhooks.${table}`);
  }
}
