import { metricsExposition, metricsRegistry } from './registry';
import { SourcedGauge } from './sourced-gauge';
import { ocspMetrics } from './ca-metrics';
import { UNMATCHED_ROUTE, expressRouteOf, observeHttpRequest } from './http-metrics';
import { IncomingMessage } from 'node:http';

async function value(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metricsRegistry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const sample = (await metric.get()).values.find((v) =>
    Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  );
  return sample?.value ?? 0;
}

describe('metrics helpers', () => {
  it('counts HTTP answers by route template and status, and errors by code', async () => {
    const labels = { service: 'gateway', method: 'POST', route: '/v1/certificates', status: '409' };
    const before = await value('ca_http_requests_total', labels);
    const errorsBefore = await value('ca_http_errors_total', {
      service: 'gateway',
      status: '409',
      code: 'CONFLICT',
    });
    observeHttpRequest({
      service: 'gateway',
      method: 'POST',
      route: '/v1/certificates',
      status: 409,
      seconds: 0.02,
      code: 'CONFLICT',
    });
    observeHttpRequest({
      service: 'gateway',
      method: 'POST',
      route: '/v1/certificates',
      status: 201,
      seconds: 0.01,
    });
    expect(await value('ca_http_requests_total', labels)).toBe(before + 1);
    expect(await value('ca_http_errors_total', { service: 'gateway', status: '409', code: 'CONFLICT' })).toBe(
      errorsBefore + 1,
    );
    const text = (await metricsExposition()).body;
    expect(text).toMatch(
      /ca_http_request_duration_seconds_bucket\{le="0.025",service="gateway",method="POST",route="\/v1\/certificates"\} [1-9]/,
    );
  });

  it('keeps unknown methods and unmatched paths out of the label values', async () => {
    observeHttpRequest({
      service: 'ocsp-responder',
      method: 'BREW',
      route: UNMATCHED_ROUTE,
      status: 404,
      seconds: 0.001,
    });
    expect(
      await value('ca_http_requests_total', { method: 'OTHER', route: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(expressRouteOf({ url: '/v1/tenants/x/ca.pem' } as IncomingMessage)).toBe(UNMATCHED_ROUTE);
    const matched = {
      baseUrl: '',
      route: { path: '/v1/certificates/:certificateId' },
    } as unknown as IncomingMessage;
    expect(expressRouteOf(matched)).toBe('/v1/certificates/:certificateId');
  });

  it('counts OCSP answers per certificate status and cache hits and misses', async () => {
    const good = await value('ca_ocsp_responses_total', { status: 'good' });
    const hits = await value('ca_ocsp_cache_hits_total');
    const misses = await value('ca_ocsp_cache_misses_total');
    ocspMetrics.answer([{ kind: 'good' }, { kind: 'revoked' }], false);
    ocspMetrics.answer([{ kind: 'good' }], true);
    ocspMetrics.answer('tryLater');
    expect(await value('ca_ocsp_responses_total', { status: 'good' })).toBe(good + 2);
    expect(await value('ca_ocsp_responses_total', { status: 'tryLater' })).toBe(1);
    expect(await value('ca_ocsp_cache_hits_total')).toBe(hits + 1);
    expect(await value('ca_ocsp_cache_misses_total')).toBe(misses + 1);
  });

  it('reads sourced gauges at scrape time, skips a failing source and forgets a removed one', async () => {
    const gauge = new SourcedGauge('test_backlog', 'test', ['service'] as const);
    let backlog = 3;
    const remove = gauge.register(async () => [{ labels: { service: 'issuance' }, value: backlog }]);
    gauge.register(async () => {
      throw new Error('database down');
    });
    expect(await gauge.samples()).toEqual([{ labels: { service: 'issuance' }, value: 3 }]);
    backlog = 0;
    expect((await metricsExposition()).body).toContain('test_backlog{service="issuance"} 0');
    remove();
    expect(await gauge.samples()).toEqual([]);
  });
});
