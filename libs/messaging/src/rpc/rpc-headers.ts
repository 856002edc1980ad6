import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { NatsRecord, NatsRecordBuilder } from '@nestjs/microservices';
import { MsgHdrs, headers as natsHeaders } from 'nats';
import { REQUEST_ID_HEADER, currentRequestId, tracerOf } from '@ca/observability';

/** Header values of one request: W3C `traceparent`/`tracestate` and `x-request-id`. */
export type RpcHeaders = Record<string, string>;

/** Reads a header from whatever the transport hands the handler (NATS MsgHdrs, in-process map). */
export interface HeaderReader {
  get(key: string): string | undefined;
}

/**
 * Wraps a request payload with the caller's trace context and request id, as NATS message
 * headers (W3C Trace Context over NATS); the in-process transport unwraps the same record. The
 * returned `end` closes the client span once the reply (or failure) is in.
 */
export function withRpcHeaders(
  pattern: string,
  payload: unknown,
): { record: NatsRecord; end(error?: unknown): void } {
  const span = tracerOf('rpc-client').startSpan(`${pattern} send`, {
    kind: SpanKind.CLIENT,
    attributes: { 'rpc.system': 'nats', 'rpc.method': pattern },
  });
  const carrier: RpcHeaders = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  const requestId = currentRequestId();
  if (requestId) carrier[REQUEST_ID_HEADER] = requestId;
  const headers = natsHeaders();
  for (const [key, value] of Object.entries(carrier)) headers.set(key, value);
  return {
    record: new NatsRecordBuilder(payload).setHeaders(headers).build(),
    end: (error?: unknown) => {
      if (error !== undefined) span.setAttribute('rpc.failed', true);
      span.end();
    },
  };
}

/** The payload and plain headers of what a client sent (a NatsRecord, or a bare payload). */
export function unwrapRecord(data: unknown): { payload: unknown; headers: RpcHeaders } {
  if (!(data instanceof NatsRecord)) return { payload: data, headers: {} };
  const headers: RpcHeaders = {};
  const hdrs = data.headers as MsgHdrs | undefined;
  for (const key of hdrs?.keys() ?? []) headers[key.toLowerCase()] = hdrs!.get(key);
  return { payload: data.data, headers };
}

/** Header access over a plain map (in-process) with NATS's `get` shape. */
export function headerReader(headers: RpcHeaders): HeaderReader {
  return { get: (key) => headers[key.toLowerCase()] };
}
