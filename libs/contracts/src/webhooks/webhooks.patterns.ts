import { TenantCommand } from '../common/tenant-command';
import { FieldError } from '../common/ca-error';
import { EventEnvelope } from '../common/event-envelope';
import { CertificateIssuedPayload } from '../issuance/certificate.events';

/** Request/reply subjects answered by the webhooks context (queue group `webhooks`). */
export const WebhooksPattern = {
  Create: 'webhooks.create',
  List: 'webhooks.list',
  Delete: 'webhooks.delete',
  Test: 'webhooks.test',
  Deliveries: 'webhooks.deliveries',
  /**
   * issuance → webhooks: `certificate.issued` events just committed, sent at once beside the
   * stream (which still brings them; each is applied once), so a webhook does not wait for the
   * tenant's partition of the stream (docs/architecture.md#webhooks-early-path).
   */
  Issued: 'webhooks.certificates-issued',
} as const;
export type WebhooksPattern = (typeof WebhooksPattern)[keyof typeof WebhooksPattern];

/** The event types a subscription may ask for (docs/api.md#webhooks). */
export const WEBHOOK_EVENT_TYPES = [
  'certificate.issued',
  'certificate.renewed',
  'certificate.revoked',
  'certificate.expiring',
  'certificate.expired',
  'ca.issuing-added',
  'ca.revoked',
  'ca.replace-leaves-requested',
  'crl.published',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The type of the event `POST /v2/webhooks/{id}/test` sends. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** `POST /v2/webhooks`: the body, and the gateway's ephemeral X25519 key the secret is sealed to. */
export interface CreateWebhookCommand extends TenantCommand {
  url: string;
  events: string[];
  expiringDays: number[];
  /** DER SubjectPublicKeyInfo of an X25519 key, base64. */
  recipientPublicKey: string;
}

export interface CreateWebhookResult {
  webhookId: string;
  createdAt: string;
  /** `whsec_<base64>`, sealed to recipientPublicKey (never in clear on the bus). */
  sealedSecret: { senderPublicKey: string; iv: string; ciphertext: string };
}

/** A subscription as listed: never its secret. */
export interface WebhookSummary {
  webhookId: string;
  url: string;
  events: string[];
  expiringDays: number[];
  createdAt: string;
}

/** One delivery attempt of the delivery log. */
export interface WebhookDeliveryAttempt {
  eventId: string;
  type: string;
  attempt: number;
  statusCode?: number;
  durationMs: number;
  at: string;
  error?: string;
}

export interface WebhookCommand extends TenantCommand {
  webhookId: string;
}

export type WebhooksApi = {
  [WebhooksPattern.Create]: [CreateWebhookCommand, CreateWebhookResult];
  [WebhooksPattern.List]: [{ tenantId: string }, { webhooks: WebhookSummary[] }];
  [WebhooksPattern.Delete]: [WebhookCommand, { webhookId: string; deleted: true }];
  [WebhooksPattern.Test]: [WebhookCommand, { eventId: string }];
  [WebhooksPattern.Deliveries]: [
    { tenantId: string; webhookId: string; limit?: number },
    { deliveries: WebhookDeliveryAttempt[] },
  ];
  [WebhooksPattern.Issued]: [{ events: EventEnvelope<CertificateIssuedPayload>[] }, { applied: true }];
};

/** The body of `POST /v2/webhooks`, checked. */
export interface WebhookRequest {
  url: string;
  events: WebhookEventType[];
  expiringDays: number[];
}

const MAX_URL_LENGTH = 2048;
// C0 and C1 controls and DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Checks a subscription body field by field (the gateway and the webhooks context both do: what
 * crosses the bus is input). `expiringDays` defaults to [30, 7, 1]: whole days from 0 to 3650,
 * at most 10, no duplicates.
 */
export function parseWebhookRequest(body: unknown): { value?: WebhookRequest; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { errors: [{ field: 'body', message: 'must be a JSON object' }] };
  }
  const { url, events, expiringDays = [30, 7, 1] } = body as Record<string, unknown>;
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH || CONTROL.test(url)) {
    errors.push({ field: 'url', message: `must be a URL of 1 to ${MAX_URL_LENGTH} characters` });
  }
  const known = WEBHOOK_EVENT_TYPES as readonly string[];
  if (
    !Array.isArray(events) ||
    events.length === 0 ||
    !events.every((e) => typeof e === 'string' && known.includes(e)) ||
    new Set(events).size !== events.length
  ) {
    errors.push({ field: 'events', message: `must be a non-empty list of distinct ${known.join(', ')}` });
  }
  if (
    !Array.isArray(expiringDays) ||
    expiringDays.length > 10 ||
    !expiringDays.every((d) => Number.isInteger(d) && d >= 0 && d <= 3650) ||
    new Set(expiringDays).size !== expiringDays.length
  ) {
    errors.push({ field: 'expiringDays', message: 'must be at most 10 distinct whole days from 0 to 3650' });
  }
  if (errors.length > 0) return { errors };
  return {
    value: {
      url: url as string,
      events: events as WebhookEventType[],
      expiringDays: [...(expiringDays as number[])].sort((a, b) => b - a),
    },
    errors,
  };
}
