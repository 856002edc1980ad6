import { IncomingMessage, ServerResponse } from 'node:http';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import {
  Context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { Observable } from 'rxjs';
import { expressRouteOf, observeHttpRequest } from '../metrics/http-metrics';
import { withRequestId } from './request-context';
import { tracerOf } from './tracing';

/** Where the request's trace context is kept between the middleware and the handler. */
const REQUEST_CONTEXT = Symbol('ca-manager.trace-context');
type WithContext = { [REQUEST_CONTEXT]?: Context };

export interface HttpObservabilityOptions {
  /** `service` label and tracer name: `gateway`, `ocsp-responder`. */
  service: string;
  /** The request id already given to the request (the gateway's X-Request-Id middleware). */
  requestIdOf?: (req: IncomingMessage) => string | undefined;
  /** The route template once answered; Express's matched route by default. */
  routeOf?: (req: IncomingMessage) => string;
  /** The error code of a failed answer (the Problem Details code), for `ca_http_errors_total`. */
  codeOf?: (res: ServerResponse) => string | undefined;
  /** Writes one access line per answer (with the request's ids); none when unset (hot paths). */
  accessLog?: { info(object: object, message: string): void };
  /** Metrics only, no span (the public surface: relying parties' OCSP at high rates). */
  tracing?: boolean;
}

/**
 * Per request: a server span (child of the caller's W3C `traceparent` when it sends one), the
 * request id and span as the active context for what follows, and on the answer the request
 * metrics (count, latency, errors by status and code) and, if asked, an access log line. Mount
 * it first, after the request id.
 */
export function httpObservability(options: HttpObservabilityOptions) {
  const tracer = tracerOf(options.service);
  const routeOf = options.routeOf ?? expressRouteOf;
  if (options.tracing === false) return metricsOnly(options.service, routeOf);
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'ca.service': options.service } },
      parent,
    );
    const ctx = withRequestId(trace.setSpan(parent, span), options.requestIdOf?.(req));
    (req as IncomingMessage & WithContext)[REQUEST_CONTEXT] = ctx;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const route = routeOf(req);
      // A client that went away before the answer: nginx's 499.
      const status = res.writableFinished ? res.statusCode : 499;
      observeHttpRequest({
        service: options.service,
        method,
        route,
        status,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        code: status >= 400 ? options.codeOf?.(res) : undefined,
      });
      if (options.accessLog) {
        const line = { method, route, status, durationMs: Number(process.hrtime.bigint() - started) / 1e6 };
        context.with(ctx, () => options.accessLog?.info(line, 'request answered'));
      }
      span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', finish);
    res.once('close', finish);
    context.with(ctx, next);
  };
}

function metricsOnly(service: string, routeOf: (req: IncomingMessage) => string) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      observeHttpRequest({
        service,
        method: req.method ?? 'GET',
        route: routeOf(req),
        status: res.writableFinished ? res.statusCode : 499,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
      });
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}

/**
 * Re-enters the request's context for the Nest handler: the context set by the middleware does
 * not survive body parsing (stream callbacks run in the socket's context), so calls the handler
 * makes (RPC to issuance) would otherwise start traces of their own and log without request id.
 */
@Injectable()
export class HttpContextInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = execution.switchToHttp().getRequest<WithContext>()?.[REQUEST_CONTEXT];
    if (!ctx) return next.handle();
    // next.handle() binds the handler to the async context it is called in: call it inside.
    return new Observable((subscriber) => context.with(ctx, () => next.handle().subscribe(subscriber)));
  }
}

/**
 * Runs `work` in the request's context (its span and request id), for a handler mounted as plain
 * middleware that answers after reading the body itself (the context does not survive the
 * stream's callbacks), as HttpContextInterceptor does for Nest handlers.
 */
export function inRequestContext<T>(req: IncomingMessage, work: () => T): T {
  const ctx = (req as IncomingMessage & WithContext)[REQUEST_CONTEXT];
  return ctx ? context.with(ctx, work) : work();
}
