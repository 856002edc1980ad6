import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { IssuanceApi } from '@ca/contracts';
import { addSpanProcessor } from '@ca/observability';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { runExpiringReport } from '@ca/gateway';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually, http } from './support/http';
import { captureLogs } from './support/logs';
import { eventuallyCrl, eventuallyRevokedInOcsp, ocspStatus } from './support/pki';
import { runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * Metrics, traces and the expiry report as an operator meets them: `GET /metrics` on both ports
 * moves with issue, revoke and OCSP calls; one admin call is one trace across gateway and issuance
 * (over the in-process transport and over NATS headers); log lines of a call carry its request id
 * and trace id; `npm run ops -- expiring` lists per tenant what expires soon.
 */
jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..', '..');

/** The value of one sample of the exposition text (0 when absent): `name{labels} value`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length, line.lastIndexOf(' '));
    if (wanted.every((pair) => labelText.includes(pair)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

async function scrape(baseUrl: string): Promise<string> {
  const answer = await http(`${baseUrl}/metrics`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return answer.text;
}

describe.each(systemModes('observability suite'))('observability (%s)', (mode) => {
  let sut: SystemUnderTest;
  const logs = captureLogs('debug');
  const spans = new InMemorySpanExporter();
  let removeExporter: () => void;
  let tenant: TestTenant;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, { serviceLogger: logs.serviceLogger });
    removeExporter = addSpanProcessor(new SimpleSpanProcessor(spans));
    tenant = await createTenant(sut);
  });

  afterAll(async () => {
    removeExporter?.();
    await sut?.stop();
  });

  it('counts issuance, revocation, OCSP answers and errors, and reports CRL age, backlog and lag', async () => {
    const before = await scrape(sut.gatewayUrl);
    const kept = await tenant.issue(issueBody({ clientId: 'kept' }));
    const lost = await tenant.issue(issueBody({ clientId: 'lost' }));
    const revoke = await tenant.post(`/v1/certificates/${lost.certificateId}/revoke`, {
      reason: 'laptop stolen',
      reasonCode: 'KeyCompromise',
    });
    expect(revoke.status).toBe(200);
    expect((await tenant.post('/v1/certificates', { clientId: 'x' })).status).toBe(400);
    await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, lost.serialNumber);
    for (let i = 0; i < 2; i++)
      expect(await ocspStatus(sut.pkiUrl, tenant.tenantId, tenant.caDer, kept.serialNumber)).toEqual({
        kind: 'good',
      });
    await eventuallyCrl(sut.pkiUrl, tenant.tenantId, (crl) => crl.entries.length === 1);

    // Under one process both ports serve every service's metrics; the public port is read here.
    const after = await scrape(sut.pkiUrl);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('ca_certificates_issued_total', { operation: 'issue' })).toBe(2);
    expect(delta('ca_certificates_revoked_total', { reason: 'KeyCompromise' })).toBe(1);
    expect(
      delta('ca_http_requests_total', {
        service: 'gateway',
        method: 'POST',
        route: '/v1/certificates',
        status: '200',
      }),
    ).toBe(2);
    expect(
      delta('ca_http_errors_total', { service: 'gateway', status: '400', code: 'VALIDATION_FAILED' }),
    ).toBe(1);
    expect(
      delta('ca_http_request_duration_seconds_count', {
        service: 'gateway',
        route: '/v1/certificates/:certificateId/revoke',
      }),
    ).toBe(1);
    expect(delta('ca_ocsp_responses_total', { status: 'good' })).toBeGreaterThanOrEqual(2);
    expect(delta('ca_ocsp_responses_total', { status: 'revoked' })).toBeGreaterThanOrEqual(1);
    // The second identical request is served from the signed-response cache.
    expect(delta('ca_ocsp_cache_hits_total')).toBeGreaterThanOrEqual(1);
    expect(
      delta('ca_http_requests_total', {
        service: 'ocsp-responder',
        method: 'POST',
        route: '/v1/tenants/:tenantId/ocsp',
      }),
    ).toBeGreaterThanOrEqual(3);
    expect(after).not.toContain(tenant.caDer.toString('base64url').slice(0, 40));

    // The public port names no tenant; the per-tenant series are on the admin port.
    expect(after).not.toContain(tenant.tenantId);
    const admin = await scrape(sut.gatewayUrl);
    const crlAge = sample(admin, 'ca_crl_age_seconds', { tenant: tenant.tenantId });
    expect(admin).toContain(`ca_crl_age_seconds{tenant="${tenant.tenantId}"}`);
    // thisUpdate is set back a minute (docs/certificate-profile.md): a fresh CRL is 60 s old.
    expect(crlAge).toBeGreaterThanOrEqual(60);
    expect(crlAge).toBeLessThan(120);
    for (const service of ['issuance', 'revocation'])
      expect(after).toMatch(new RegExp(`^ca_outbox_backlog\\{service="${service}"\\} \\d+$`, 'm'));
    for (const consumer of ['revocation', 'ocsp-responder'])
      expect(after).toMatch(new RegExp(`^ca_consumer_pending\\{consumer="${consumer}"\\} \\d+$`, 'm'));
    // Caught up: everything published and consumed.
    await eventually(
      async () => {
        const text = await scrape(sut.gatewayUrl);
        return sample(text, 'ca_outbox_backlog', { service: 'issuance' }) === 0 &&
          sample(text, 'ca_consumer_pending', { consumer: 'ocsp-responder' }) === 0
          ? true
          : undefined;
      },
      10_000,
      'backlog and lag back to 0',
    );
  });

  it('makes one trace of an issuance, with spans in the gateway and issuance, and logs carrying its ids', async () => {
    spans.reset();
    const traceId = randomBytes(16).toString('hex');
    const requestId = `obs-${randomBytes(6).toString('hex')}`;
    const answer = await tenant.post('/v1/certificates', issueBody({ clientId: 'traced' }), {
      headers: {
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
        'x-request-id': requestId,
      },
    });
    expect(answer.status).toBe(200);

    const finished = await eventually(
      async () => {
        const all = spans.getFinishedSpans();
        const gateway = all.find(
          (s) => s.instrumentationScope.name === 'gateway' && s.name === 'POST /v1/certificates',
        );
        const issuance = all.find(
          (s) => s.instrumentationScope.name === 'issuance' && s.name === 'issuance.certificate.issue',
        );
        return gateway && issuance ? { all, gateway, issuance } : undefined;
      },
      5_000,
      'gateway and issuance spans',
    );
    const { gateway, issuance } = finished;
    // The caller's trace is continued: gateway → RPC client → issuance, one trace id throughout.
    expect(gateway.spanContext().traceId).toBe(traceId);
    expect(issuance.spanContext().traceId).toBe(traceId);
    const client = finished.all.find((s) => s.spanContext().spanId === issuance.parentSpanContext?.spanId);
    expect(client?.name).toBe('issuance.certificate.issue send');
    expect(client?.parentSpanContext?.spanId).toBe(gateway.spanContext().spanId);
    expect(gateway.attributes['http.response.status_code']).toBe(200);

    const lines = logs
      .text()
      .split('\n')
      .filter((line) => line.includes(requestId))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The gateway's access line and issuance's handler line (Nest's shared logger under npm start).
    expect(lines.find((l) => l.msg === 'request answered')).toMatchObject({
      requestId,
      traceId,
      status: 200,
    });
    // (issuance's own request to the responder, read-your-writes, carries the same ids)
    expect(
      lines.find((l) => l.context === 'Rpc' && l.pattern === 'issuance.certificate.issue'),
    ).toMatchObject({
      requestId,
      traceId,
      pattern: 'issuance.certificate.issue',
    });
    expect(lines.every((l) => l.traceId === traceId)).toBe(true);
  });

  it("continues a revocation's trace in the consumers of its event (through the outbox and stream)", async () => {
    const { certificateId } = await tenant.issue(issueBody({ clientId: 'traced-revoke' }));
    spans.reset();
    const traceId = randomBytes(16).toString('hex');
    const answer = await tenant.post(
      `/v1/certificates/${certificateId}/revoke`,
      { reason: 'traced' },
      { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } },
    );
    expect(answer.status).toBe(200);
    const consumers = await eventually(
      async () => {
        // The CRL's and OCSP's consumers (webhooks, when it runs, consumes the event too).
        const found = spans
          .getFinishedSpans()
          .filter((s) => s.name === 'certificate.revoked process' && s.spanContext().traceId === traceId)
          .filter((s) => s.instrumentationScope.name !== 'webhooks');
        return found.length === 2 ? found : undefined;
      },
      10_000,
      'consumer spans of certificate.revoked',
    );
    expect(consumers.map((s) => s.instrumentationScope.name).sort()).toEqual([
      'ocsp-responder',
      'revocation',
    ]);
    const issuance = spans
      .getFinishedSpans()
      .find((s) => s.name === 'issuance.certificate.revoke' && s.spanContext().traceId === traceId);
    // The event was recorded inside issuance's handling: the consumers' spans are its children.
    expect(consumers.every((s) => s.parentSpanContext?.spanId === issuance?.spanContext().spanId)).toBe(true);
    // Each consumer's line about the event carries the revoke call's request id and trace id.
    const requestId = answer.headers.get('x-request-id');
    const handled = logs
      .text()
      .split('\n')
      .filter((line) => /"events? handled"/.test(line) && line.includes(traceId))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(handled.every((l) => l.requestId === requestId)).toBe(true);
    const revoked = handled.filter((l) => l.type === 'certificate.revoked' && l.consumer !== 'webhooks');
    expect(revoked.map((l) => l.consumer).sort()).toEqual(['ocsp-responder', 'revocation']);
    // The CRL published in answer to the revocation carries the same trace on to its consumers.
    await eventually(
      async () =>
        logs
          .text()
          .split('\n')
          .find(
            (line) =>
              line.includes('"crl.published"') && line.includes(traceId) && line.includes('"event handled"'),
          ),
      10_000,
      'crl.published handled under the same trace',
    );
  });

  it('reports Active certificates expiring soon: the per-tenant gauge and `npm run ops -- expiring`', async () => {
    const soon = await createTenant(sut);
    const in5 = await soon.issue(issueBody({ clientId: 'five', validityDays: 5 }));
    const in20 = await soon.issue(issueBody({ clientId: 'twenty', validityDays: 20 }));
    const revoked = await soon.issue(issueBody({ clientId: 'revoked', validityDays: 3 }));
    await soon.issue(issueBody({ clientId: 'later', validityDays: 365 }));
    expect(
      (await soon.post(`/v1/certificates/${revoked.certificateId}/revoke`, { reason: 'gone' })).status,
    ).toBe(200);

    const metrics = await scrape(sut.gatewayUrl);
    expect(sample(metrics, 'ca_certificates_expiring', { tenant: soon.tenantId, within_days: '7' })).toBe(1);
    expect(sample(metrics, 'ca_certificates_expiring', { tenant: soon.tenantId, within_days: '30' })).toBe(2);

    const json = await expiring('--days', '30', '--json');
    expect(json.status).toBe(0);
    const listed = json.stdout
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { tenantId: string; serialNumber: string; daysUntilExpiration: number },
      )
      .filter((c) => c.tenantId === soon.tenantId);
    expect(listed.map((c) => c.serialNumber)).toEqual([in5.serialNumber, in20.serialNumber]);
    expect(listed.map((c) => c.daysUntilExpiration)).toEqual([4, 19]);

    const text = await expiring('--days', '7');
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`tenant ${soon.tenantId}: 1\n`);
    expect(text.stdout).toContain(in5.serialNumber);
    expect(text.stdout).not.toContain(in20.serialNumber);
  });

  /**
   * Embedded, the JSON report: the real command in another process (through the operator
   * endpoint). Otherwise the same report code runs here over the system's own messaging: with NATS
   * the suite's request subjects carry a prefix the command does not know, and one process start
   * per suite is enough (the text format is unit-tested).
   */
  async function expiring(
    ...args: string[]
  ): Promise<{ status: number | null; stdout: string; stderr: string }> {
    if (mode === 'embedded' && args.includes('--json')) {
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: sut.config.dataDir };
      for (const name of ['DATABASE_URL', 'NATS_URL', 'NODE_OPTIONS']) delete env[name];
      return runProgram(
        process.execPath,
        ['-r', '@swc-node/register', join(ROOT, 'tools/ops.ts'), 'expiring', ...args],
        {
          env,
          timeoutMs: 30_000,
        },
      ).then((r) => {
        if (r.status !== 0) throw new Error(`ops failed (${r.status}): ${r.stderr}`);
        return r;
      });
    }
    const issuance = sut.system.messaging.rpcClient<IssuanceApi>();
    let stdout = '';
    let stderr = '';
    const status = await runExpiringReport(
      { days: Number(args[1]), json: args.includes('--json') },
      issuance,
      { out: (line) => void (stdout += `${line}\n`), err: (line) => void (stderr += `${line}\n`) },
    );
    await issuance.close();
    return { status, stdout, stderr };
  }
});
