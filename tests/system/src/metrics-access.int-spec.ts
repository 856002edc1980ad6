import 'reflect-metadata';
import { createTenant } from './support/admin-api';
import { http } from './support/http';
import { eventuallyCrl } from './support/pki';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * Who reads `/metrics` (docs/operations.md#metrics): with METRICS_TOKEN set, a bearer token is
 * required on both ports; the public port never names a tenant, the admin port keeps the
 * per-tenant series. Under `npm start` both ports read one registry, which makes the public
 * port's filtering the thing under test.
 */
jest.setTimeout(60_000);

const TOKEN = 'metrics-token-for-the-suite';

describe.each(systemModes('metrics access suite'))('/metrics access (%s)', (mode) => {
  let sut: SystemUnderTest;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, { env: { METRICS_TOKEN: TOKEN } });
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('requires the bearer token on both ports, and names no tenant on the public port', async () => {
    const tenant = await createTenant(sut);
    await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true);
    const bearer = { authorization: `Bearer ${TOKEN}` };
    for (const base of [sut.gatewayUrl, sut.pkiUrl]) {
      expect((await http(`${base}/metrics`)).status).toBe(401);
      expect((await http(`${base}/metrics`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    }
    const admin = await http(`${sut.gatewayUrl}/metrics`, { headers: bearer });
    expect(admin.status).toBe(200);
    expect(admin.text).toContain(`ca_crl_age_seconds{tenant="${tenant.tenantId}"}`);
    const pub = await http(`${sut.pkiUrl}/metrics`, { headers: bearer });
    expect(pub.status).toBe(200);
    expect(pub.text).toContain('ca_ocsp_responses_total');
    expect(pub.text).not.toContain(tenant.tenantId);
  });
});
