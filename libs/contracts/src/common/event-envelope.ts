/**
 * Every durable event has this envelope. `id` is the idempotency key: JetStream de-duplicates
 * on it (Nats-Msg-Id) and each consumer records it in its inbox, so a redelivery is applied once.
 * Payloads always carry `tenantId`; fields are added, never repurposed.
 */
export interface EventEnvelope<T = unknown> {
  id: string;
  type: string;
  tenantId: string;
  occurredAt: string;
  payload: T;
}
