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
   * W3C trace context (`traceparent`, `tracestate`) and `x-request-id` of the request that
   * recorded the event, so consumers continue its trace and log its request id. Absent for events
   * recorded outside a request.
   */
  traceContext?: Record<string, string>;
}
