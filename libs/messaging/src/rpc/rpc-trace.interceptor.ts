import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { REQUEST_ID_HEADER, tracerOf, withRequestId } from '@ca/observability';
import { Observable } from 'rxjs';
import { HeaderReader } from './rpc-headers';

/** Error codes that mean the service failed, not the caller. */
const SERVICE_FAILURES = new Set(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);

/**
 * The serving half of trace propagation: continues the caller's trace (W3C `traceparent` from the
 * NATS or in-process headers) in a server span named after the pattern, and makes the request id
 * (header, or the command's `requestId`) part of the context, so the handler's log lines carry
 * both. Mount it before RpcReplyInterceptor, which turns outcomes into replies.
 */
@Injectable()
export class RpcTraceInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Rpc');

  constructor(private readonly service: string) {}

  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = execution.switchToRpc();
    const headers = (rpc.getContext() as { getHeaders?(): HeaderReader | undefined }).getHeaders?.();
    const read = (key: string) => headers?.get(key) || undefined;
    const parent = propagation.extract(ROOT_CONTEXT, headers, {
      get: (_carrier, key) => read(key),
      keys: () => [],
    });
    const patterns: unknown = Reflect.getMetadata(PATTERN_METADATA, execution.getHandler());
    const pattern = Array.isArray(patterns) ? String(patterns[0]) : execution.getHandler().name;
    const payload = rpc.getData() as { requestId?: unknown } | undefined;
    const requestId =
      read(REQUEST_ID_HEADER) ?? (typeof payload?.requestId === 'string' ? payload.requestId : undefined);
    const span = tracerOf(this.service).startSpan(
      pattern,
      { kind: SpanKind.SERVER, attributes: { 'rpc.method': pattern, 'ca.service': this.service } },
      parent,
    );
    const ctx = withRequestId(trace.setSpan(parent, span), requestId);
    const started = Date.now();
    const handled = (outcome: string) =>
      context.with(ctx, () =>
        this.logger.debug({ pattern, outcome, durationMs: Date.now() - started }, 'request handled'),
      );
    return new Observable((subscriber) =>
      context.with(ctx, () =>
        next.handle().subscribe({
          next: (value: unknown) => {
            const error = (value as { ok?: boolean; error?: { code?: string } } | undefined)?.error;
            if (error?.code) {
              span.setAttribute('ca.error_code', error.code);
              if (SERVICE_FAILURES.has(error.code)) span.setStatus({ code: SpanStatusCode.ERROR });
            }
            handled(error?.code ?? 'ok');
            subscriber.next(value);
          },
          error: (error: unknown) => {
            handled('failed');
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            subscriber.error(error);
          },
          complete: () => {
            span.end();
            subscriber.complete();
          },
        }),
      ),
    );
  }
}
