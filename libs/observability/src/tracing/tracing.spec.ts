import { Writable } from 'node:stream';
import { ROOT_CONTEXT, TraceFlags, context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createLogger } from '../logger';
import { currentLogFields, withRequestId } from './request-context';
import { addSpanProcessor, installTracing, tracerOf } from './tracing';

describe('tracing and log correlation', () => {
  beforeAll(() => installTracing({ serviceName: 'test', env: {} }));

  it('puts the request id, trace id and span id of the active context in every log line', () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')));
        done();
      },
    });
    const logger = createLogger({ level: 'info', service: 'test', destination });
    const span = tracerOf('gateway').startSpan('POST /v1/certificates');
    context.with(withRequestId(trace.setSpan(context.active(), span), 'req-42'), () => logger.info('inside'));
    span.end();
    logger.info('outside');
    expect(lines[0]).toMatchObject({
      msg: 'inside',
      requestId: 'req-42',
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
    });
    expect(lines[0].traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[1]).not.toHaveProperty('requestId');
    expect(lines[1]).not.toHaveProperty('traceId');
    expect(currentLogFields()).toEqual({});
  });

  it("without an exporter records no span but continues the caller's trace and propagates it", () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const caller = propagation.extract(ROOT_CONTEXT, {
      traceparent: `00-${traceId}-b7ad6b7169203331-01`,
    });
    const span = tracerOf('gateway').startSpan('POST /v1/certificates', {}, caller);
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext()).toMatchObject({ traceId, traceFlags: TraceFlags.SAMPLED });
    expect(span.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.spanContext().spanId).not.toBe('b7ad6b7169203331');
    const headers: Record<string, string> = {};
    propagation.inject(trace.setSpan(caller, span), headers);
    expect(headers.traceparent).toBe(`00-${traceId}-${span.spanContext().spanId}-01`);

    const unsampled = propagation.extract(ROOT_CONTEXT, {
      traceparent: `00-${traceId}-b7ad6b7169203331-00`,
    });
    expect(tracerOf('gateway').startSpan('x', {}, unsampled).spanContext().traceFlags).toBe(TraceFlags.NONE);

    const root = tracerOf('gateway').startSpan('root', {}, ROOT_CONTEXT);
    expect(trace.isSpanContextValid(root.spanContext())).toBe(true);
    expect(root.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
    expect(root.spanContext().traceId).not.toBe(traceId);
  });

  it('hands finished spans to added processors until they are removed', async () => {
    const exporter = new InMemorySpanExporter();
    const remove = addSpanProcessor(new SimpleSpanProcessor(exporter));
    const parent = tracerOf('gateway').startSpan('parent');
    await context.with(trace.setSpan(context.active(), parent), async () => {
      await Promise.resolve();
      tracerOf('issuance').startSpan('child').end();
    });
    parent.end();
    remove();
    tracerOf('gateway').startSpan('after removal').end();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['child', 'parent']);
    expect(spans[0].spanContext().traceId).toBe(spans[1].spanContext().traceId);
    expect(spans[0].parentSpanContext?.spanId).toBe(spans[1].spanContext().spanId);
    expect(spans.map((s) => s.instrumentationScope.name)).toEqual(['issuance', 'gateway']);
  });
});
