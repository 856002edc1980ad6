/** A webhook event before it is addressed: its type, the certificate (or CA) it orders by, its data. */
export interface OutgoingEvent {
  tenantId: string;
  type: string;
  orderKey: string;
  /** The event's time (the body's `timestamp`). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** The delivered body (Standard Webhooks): `{"type", "timestamp", "data"}`. */
export function webhookBody(event: OutgoingEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}
