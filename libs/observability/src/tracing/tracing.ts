import { Context, Tracer, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  ReadableSpan,
  Span,
  SpanProcessor,
} from '@opentelemetry/sdk-trace-node';

/**
 * Hands every span to the processors added at run time (the OTLP exporter, a test's in-memory
 * exporter). The SDK takes its processors once, at construction; this one stays and fans out.
 */
class FanOutSpanProcessor implements SpanProcessor {
  readonly processors = new Set<SpanProcessor>();

  onStart(span: Span, parentContext: Context): void {
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
 * Without an endpoint spans are still made (trace ids for logs and propagation) but go nowhere.
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

/** The tracer of one service: its name is the instrumentation scope of the spans it makes. */
export function tracerOf(service: string): Tracer {
  return trace.getTracer(service);
}
