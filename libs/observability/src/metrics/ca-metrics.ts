import { Counter } from 'prom-client';
import { metricsRegistry } from './registry';
import { SourcedGauge } from './sourced-gauge';

const registers = [metricsRegistry];

/** Certificates signed and revoked by issuance; `operation` is issue, issue-v2, renew or renew-v2. */
export const certificateMetrics = {
  issuedTotal: new Counter({
    name: 'ca_certificates_issued_total',
    help: 'Leaf certificates signed by issuance, by operation (issue, issue-v2, renew, renew-v2).',
    labelNames: ['operation'] as const,
    registers,
  }),
  revokedTotal: new Counter({
    name: 'ca_certificates_revoked_total',
    help: 'Certificates revoked, by RFC 5280 reason (Unspecified, KeyCompromise, ...).',
    labelNames: ['reason'] as const,
    registers,
  }),
  issued(operation: 'issue' | 'issue-v2' | 'renew' | 'renew-v2'): void {
    this.issuedTotal.inc({ operation });
  },
  /** `reason` is the validated RFC 5280 reason name, so the label stays bounded. */
  revoked(reason: string | undefined): void {
    this.revokedTotal.inc({ reason: reason ?? 'Unspecified' });
  },
  /** Active certificates expiring within 7 and 30 days, per tenant (read from issuance's schema). */
  expiring: new SourcedGauge(
    'ca_certificates_expiring',
    'Active certificates of a tenant whose notAfter falls within the next `within_days` days (7 or 30).',
    ['tenant', 'within_days'] as const,
  ),
};

/** Pre-signing lints that refused a certificate, CRL or OCSP response (docs/lints.md), by lint name. */
export const lintMetrics = {
  failuresTotal: new Counter({
    name: 'ca_lint_failures_total',
    help: 'Certificates, CRLs and OCSP responses refused before signing, by the lint that failed.',
    labelNames: ['lint'] as const,
    registers,
  }),
  /** `lint` is a name from the fixed lint catalog, so the label stays bounded. */
  failed(lint: string): void {
    this.failuresTotal.inc({ lint });
  },
};

/**
 * What the responder answered (RFC 6960 2.2/2.3): `good`, `revoked`, `unknown` per single response,
 * or the error status (`malformedRequest`, `unauthorized`, `tryLater`, `internalError`); plus the
 * signed-response cache (RFC 5019 2.2) hits and misses, whose ratio says how much signing is saved.
 */
export const ocspMetrics = {
  responsesTotal: new Counter({
    name: 'ca_ocsp_responses_total',
    help: 'OCSP answers by status: good, revoked, unknown (per certificate asked) or the error status.',
    labelNames: ['status'] as const,
    registers,
  }),
  cacheHitsTotal: new Counter({
    name: 'ca_ocsp_cache_hits_total',
    help: 'OCSP requests answered from the signed-response cache.',
    registers,
  }),
  cacheMissesTotal: new Counter({
    name: 'ca_ocsp_cache_misses_total',
    help: 'Cacheable OCSP requests (no nonce) that had to be signed anew.',
    registers,
  }),
  unrequestedSignersTotal: new Counter({
    name: 'ca_ocsp_unrequested_signers_total',
    help: 'OCSP signers issuance announced as certified that no responder replica asked for (alert on any).',
    registers,
  }),
  signerSweepFailuresTotal: new Counter({
    name: 'ca_ocsp_signer_sweep_failures_total',
    help: 'Background sweeps for due OCSP signers that could not read the signer table (retried next sweep).',
    registers,
  }),
  /**
   * One answer: the error status, or the status of each certificate asked; and whether it came
   * from the cache (undefined: not cacheable, for example a request with a nonce).
   */
  answer(statuses: string | readonly { kind: string }[], cacheHit?: boolean): void {
    if (typeof statuses === 'string') this.responsesTotal.inc({ status: statuses });
    else for (const status of statuses) this.responsesTotal.inc({ status: status.kind });
    if (cacheHit === true) this.cacheHitsTotal.inc();
    else if (cacheHit === false) this.cacheMissesTotal.inc();
  },
  /** Seconds since thisUpdate of the newest CRL the responder serves, per tenant. */
  crlAge: new SourcedGauge(
    'ca_crl_age_seconds',
    'Seconds since thisUpdate of the newest CRL the OCSP responder serves for the tenant.',
    ['tenant'] as const,
  ),
};

/** Event flow health: events not yet published, and events not yet delivered to a consumer. */
export const messagingMetrics = {
  outboxBacklog: new SourcedGauge(
    'ca_outbox_backlog',
    'Events recorded in a service outbox and not yet published to the event stream.',
    ['service'] as const,
  ),
  consumerPending: new SourcedGauge(
    'ca_consumer_pending',
    'Events in the stream not yet delivered to a durable consumer (JetStream num_pending).',
    ['consumer'] as const,
  ),
};

/** Outgoing webhooks (docs/operations.md#webhooks): attempts by outcome, and messages still to deliver. */
export const webhookMetrics = {
  attemptsTotal: new Counter({
    name: 'ca_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome: delivered (2xx), retry (will be tried again), failed (given up after 24 h).',
    labelNames: ['outcome'] as const,
    registers,
  }),
  pending: new SourcedGauge(
    'ca_webhook_pending',
    'Webhook messages queued and not yet delivered or failed (all tenants), per delivering service.',
    ['service'] as const,
  ),
};

/**
 * Read-your-writes (docs/architecture.md#read-your-writes): issuance's direct publications to the
 * responder by outcome, status changes the responder ignored as older than what it holds, and
 * ledger entries revocation dropped because issuance never recorded them.
 */
export const publicationMetrics = {
  publicationsTotal: new Counter({
    name: 'ca_publications_total',
    help: 'Direct publications from issuance to the responder, by kind (certificates, revocation, ca, withdrawal: an issue it did not store after all; crl-ledger: a bulk revocation batch sent to revocation) and outcome (confirmed, unconfirmed).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  }),
  staleStatusChangesTotal: new Counter({
    name: 'ca_ocsp_stale_status_changes_total',
    help: 'Status changes the responder ignored because it already holds a newer one (late or replayed events), by event type.',
    labelNames: ['type'] as const,
    registers,
  }),
  reconciledCrlEntriesTotal: new Counter({
    name: 'ca_crl_entries_reconciled_total',
    help: "Revocation ledger entries dropped (extra) or added (missing) to match issuance's ledger after it refused a CRL.",
    labelNames: ['change'] as const,
    registers,
  }),
};
