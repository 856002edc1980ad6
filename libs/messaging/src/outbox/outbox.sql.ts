/**
 * DDL of the transactional outbox that every producing schema holds (written by that
 * service's migration, so the table is owned by its schema).
 */
export function outboxTableSql(schema: string): string[] {
  return [
    `CREATE TABLE ${schema}.outbox (
      seq bigserial PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      type text NOT NULL,
      tenant_id uuid NOT NULL,
      payload jsonb NOT NULL,
      occurred_at timestamptz NOT NULL,
      published_at timestamptz,
      claimed_by uuid,
      claimed_until timestamptz
    )`,
    `CREATE INDEX outbox_unpublished ON ${schema}.outbox (seq) WHERE published_at IS NULL`,
  ];
}

/**
 * Added to every outbox by a later migration of its schema: the W3C trace context of the request
 * that recorded the event (null outside a request), which the relay puts into the envelope.
 */
export function outboxTraceContextSql(schema: string): string {
  return `ALTER TABLE ${schema}.outbox ADD COLUMN trace_context jsonb`;
}

/**
 * Added to outboxes created before relays claimed their rows (idempotent, as outboxTableSql has the
 * columns): the relay holding the head of the outbox (`claimed_by`) and until when (`claimed_until`,
 * the database clock), so that replicas of a service never publish the same rows at once (OutboxRelay).
 */
export function outboxClaimSql(schema: string): string {
  return `ALTER TABLE ${schema}.outbox ADD COLUMN IF NOT EXISTS claimed_by uuid,
    ADD COLUMN IF NOT EXISTS claimed_until timestamptz`;
}

/** DDL of the inbox that makes a consumer idempotent: one row per applied event id. */
export function inboxTableSql(schema: string): string[] {
  return [
    `CREATE TABLE ${schema}.inbox (
      event_id uuid PRIMARY KEY,
      type text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`,
  ];
}

/** Lets the retention job find published outbox rows by age without reading the table (EventRetention). */
export function outboxRetentionIndexSql(schema: string): string {
  return `CREATE INDEX IF NOT EXISTS outbox_published_at ON ${schema}.outbox (published_at) WHERE published_at IS NOT NULL`;
}

/** Lets the retention job find inbox rows by age without reading the table (EventRetention). */
export function inboxRetentionIndexSql(schema: string): string {
  return `CREATE INDEX IF NOT EXISTS inbox_applied_at ON ${schema}.inbox (applied_at)`;
}

/**
 * Added by the relay itself at start (idempotent): a row the bus refuses for good (permission
 * refused, too large, malformed) is set aside with its reason instead of blocking the rows behind
 * it (OutboxRelay); `npm run ops -- events outbox` lists and replays them.
 */
export function outboxSetAsideSql(schema: string): string {
  return `ALTER TABLE ${schema}.outbox ADD COLUMN IF NOT EXISTS set_aside_at timestamptz,
    ADD COLUMN IF NOT EXISTS set_aside_reason text`;
}
