import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Gauge } from 'prom-client';
import { metricsRegistry } from '@ca/observability';
import {
  configureMetricsAccess,
  metricsMiddleware,
  publicMetricsMiddleware,
  withoutTenants,
} from './metrics.endpoint';

const TENANT = '0b6f3c9e-5a7d-4e2b-9c1f-2d8e7a6b5c4d';

describe('/metrics', () => {
  let servers: Server[];
  let adminUrl: string;
  let publicUrl: string;

  beforeAll(async () => {
    const perTenant = new Gauge({
      name: 'test_per_tenant',
      help: 'a per-tenant series',
      labelNames: ['tenant'],
      registers: [metricsRegistry],
    });
    perTenant.set({ tenant: TENANT }, 3);
    const byRoute = new Gauge({
      name: 'test_by_route',
      help: 'a series whose label leaked an id',
      labelNames: ['route'],
      registers: [metricsRegistry],
    });
    byRoute.set({ route: `/v1/tenants/${TENANT}/crl` }, 1);
    byRoute.set({ route: '/v1/tenants/:tenantId/crl' }, 2);
    const serve = (middleware: typeof metricsMiddleware) =>
      new Promise<Server>((resolve) => {
        const server = createServer((req, res) =>
          middleware(req, res, () => {
            res.statusCode = 404;
            res.end();
          }),
        );
        server.listen(0, '127.0.0.1', () => resolve(server));
      });
    servers = [await serve(metricsMiddleware), await serve(publicMetricsMiddleware)];
    [adminUrl, publicUrl] = servers.map(
      (server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`,
    );
  });

  afterEach(() => configureMetricsAccess({}));

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  it('names no tenant on the public port; the admin port keeps the per-tenant series', async () => {
    const publicText = await (await fetch(publicUrl)).text();
    expect(publicText).not.toContain(TENANT);
    expect(publicText).toContain('test_by_route{route="/v1/tenants/:tenantId/crl"} 2');
    expect(publicText).toContain('# TYPE test_per_tenant gauge');
    const adminText = await (await fetch(adminUrl)).text();
    expect(adminText).toContain(`test_per_tenant{tenant="${TENANT}"} 3`);
  });

  it('requires METRICS_TOKEN as a bearer token on either port when it is set (401 otherwise)', async () => {
    configureMetricsAccess({ token: 's3cret-token' });
    for (const url of [adminUrl, publicUrl]) {
      const missing = await fetch(url);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Basic s3cret-token' } })).status).toBe(401);
      const allowed = await fetch(url, { headers: { authorization: 'Bearer s3cret-token' } });
      expect(allowed.status).toBe(200);
    }
  });

  it('drops only sample lines that carry a tenant, whatever the label', () => {
    const text = [
      '# HELP a x',
      `a{tenant="${TENANT}"} 1`,
      `a{tenant_id="t1",x="y"} 1`,
      `b{x="y",tenantId="t2"} 1`,
      'c{route="/v1/tenants/:tenantId/ocsp"} 4',
      'd 5',
    ].join('\n');
    expect(withoutTenants(text)).toBe(
      ['# HELP a x', 'c{route="/v1/tenants/:tenantId/ocsp"} 4', 'd 5'].join('\n'),
    );
  });
});
