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
  /**
   * W3C trace context (`traceparent`, `tracestate`) of the request that recorded the event, so
   * consumers continue its trace. Absent for events recorded outside a traced request.
   */
  traceContext?: Record<string, string>;
}
