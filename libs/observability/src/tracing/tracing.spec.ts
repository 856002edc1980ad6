import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
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
