import { Context, context, createContextKey, trace } from '@opentelemetry/api';

const REQUEST_ID = createContextKey('ca-manager.request-id');

/** The header that carries the request id from the gateway to the services (and back to callers). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** `ctx` with the request id of the call it serves (docs/api.md#errors `requestId`). */
export function withRequestId(ctx: Context, requestId: string | undefined): Context {
  return requestId ? ctx.setValue(REQUEST_ID, requestId) : ctx;
}

export function currentRequestId(ctx: Context = context.active()): string | undefined {
  const value = ctx.getValue(REQUEST_ID);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The fields that tie a log line to its request: request id, trace id and span id of the active
 * context, in whichever service the request has reached. Empty outside a request.
 */
export function currentLogFields(): { requestId?: string; traceId?: string; spanId?: string } {
  const ctx = context.active();
  const fields: { requestId?: string; traceId?: string; spanId?: string } = {};
  const requestId = currentRequestId(ctx);
  if (requestId) fields.requestId = requestId;
  const span = trace.getSpanContext(ctx);
  if (span && trace.isSpanContextValid(span)) {
    fields.traceId = span.traceId;
    fields.spanId = span.spanId;
  }
  return fields;
}
