import { Context, Span, SpanOptions, TraceFlags, Tracer, context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  RandomIdGenerator,
  ReadableSpan,
  Span as SdkSpan,
  SpanProcessor,
} from '@opentelemetry/sdk-trace-node';

/**
 * Hands every span to the processors added at run time (the OTLP exporter, a test's in-memory
 * exporter). The SDK takes its processors once, at construction; this one stays and fans out.
 */
class FanOutSpanProcessor implements SpanProcessor {
  readonly processors = new Set<SpanProcessor>();

  onStart(span: SdkSpan, parentContext: Context): void {
    for (const p of this.processors) p.onStart(span, parentContext);
  }
  onEnd(span: ReadableSpan): void {
    for (const p of this.processors) p.onEnd(span);
  }
  async forceFlush(): Promise<void> {
    await Promise.all([...this.processors].map((p) => p.forceFlush()));
  }
  async shutdown(): Promise<void> {
    await Promise.all([...this.processors].map((p) => p.shutdown()));
  }
}

let installed: { provider: NodeTracerProvider; fanOut: FanOutSpanProcessor } | undefined;

export interface TracingOptions {
  /** `service.name` of the process's spans (`ca-manager` under `npm start`). */
  serviceName: string;
  /** Standard OpenTelemetry variables; OTLP export only when an endpoint is set. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Installs the process's tracer provider once (later calls are no-ops): W3C trace context
 * propagation, an AsyncLocalStorage context so that a request's spans and log lines find their
 * trace, and OTLP/HTTP export when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set.
 * Without an endpoint (and no processor added) spans are not recorded: see `tracerOf`.
 */
export function installTracing(options: TracingOptions): void {
  if (installed) return;
  const env = options.env ?? process.env;
  const fanOut = new FanOutSpanProcessor();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || options.serviceName }),
    spanProcessors: [fanOut],
  });
  provider.register();
  installed = { provider, fanOut };
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
    fanOut.processors.add(new BatchSpanProcessor(new OTLPTraceExporter()));
}

/** Adds a span processor (a test's in-memory exporter); the returned function removes it. */
export function addSpanProcessor(processor: SpanProcessor): () => void {
  if (!installed) throw new Error('installTracing() has not run in this process');
  installed.fanOut.processors.add(processor);
  return () => installed?.fanOut.processors.delete(processor);
}

/** Exports what is buffered (before the process exits). */
export async function flushTracing(): Promise<void> {
  await installed?.provider.forceFlush();
}

/**
 * The tracer of one service: its name is the instrumentation scope of the spans it makes.
 *
 * While no span processor is installed (no OTLP endpoint, no test exporter), spans are not
 * recorded: each is only its context (trace id, a new span id, the trace flags), so trace ids
 * still reach log lines, RPC and NATS headers and the outbox, as with recorded spans, without
 * the SDK's span objects (attributes, timestamps, processors) on every request. The trace flags
 * are the ones the SDK's default sampler (parent-based, always on) would give.
 */
export function tracerOf(service: string): Tracer {
  let tracer = tracers.get(service);
  if (!tracer) {
    tracer = new UnlessExportedTracer(service);
    tracers.set(service, tracer);
  }
  return tracer;
}

const tracers = new Map<string, Tracer>();
const ids = new RandomIdGenerator();

class UnlessExportedTracer implements Tracer {
  private sdkTracer?: Tracer;

  constructor(private readonly service: string) {}

  startSpan(name: string, options?: SpanOptions, ctx: Context = context.active()): Span {
    // Not installed (unit tests of other libraries): the API's no-op tracer, as before.
    if (!installed || installed.fanOut.processors.size > 0) {
      this.sdkTracer ??= trace.getTracer(this.service);
      return this.sdkTracer.startSpan(name, options, ctx);
    }
    const parent = options?.root ? undefined : trace.getSpanContext(ctx);
    if (parent && trace.isSpanContextValid(parent)) {
      return trace.wrapSpanContext({
        traceId: parent.traceId,
        spanId: ids.generateSpanId(),
        traceFlags: parent.traceFlags & TraceFlags.SAMPLED,
        traceState: parent.traceState,
      });
    }
    return trace.wrapSpanContext({
      traceId: ids.generateTraceId(),
      spanId: ids.generateSpanId(),
      traceFlags: TraceFlags.SAMPLED,
    });
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest[rest.length - 1] as (span: Span) => ReturnType<F>;
    const options = rest.length > 1 ? (rest[0] as SpanOptions | undefined) : undefined;
    const ctx = rest.length > 2 ? (rest[1] as Context) : context.active();
    const span = this.startSpan(name, options, ctx);
    return context.with(trace.setSpan(ctx, span), fn, undefined, span);
  }
}
