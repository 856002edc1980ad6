import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { CertificateAuthorityController } from '../certificate-authority/certificate-authority.controller';
import { CertificateAuthorityV2Controller } from '../certificate-authority/certificate-authority-v2.controller';
import { CertificatesController } from '../certificates/certificates.controller';
import { CertificatesV2Controller } from '../certificates/certificates-v2.controller';
import { EabKeysController } from '../acme/eab-keys.controller';
import { AcmeProfilesController } from '../acme/acme-profiles.controller';
import { IssuancePolicyController } from '../policy/issuance-policy.controller';
import { auditActionOf, auditResourceOf, isAuditedPath } from './audit-action';

const ID = '0b6f8a2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b';

/** Every (method, path) the admin controllers answer, with `:params` filled in. */
function controllerRoutes(): { method: string; path: string }[] {
  const controllers = [
    CertificateAuthorityController,
    CertificateAuthorityV2Controller,
    CertificatesController,
    CertificatesV2Controller,
    IssuancePolicyController,
    EabKeysController,
    AcmeProfilesController,
  ];
  return controllers.flatMap((controller) => {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const prototype = controller.prototype as unknown as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype)
      .filter(
        (name) => name !== 'constructor' && Reflect.hasMetadata(PATH_METADATA, prototype[name] as object),
      )
      .map((name) => {
        const handler = prototype[name] as object;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const full = `/${[base, path].filter((p) => p && p !== '/').join('/')}`.replace(/:[A-Za-z]+/g, ID);
        return { method, path: full };
      });
  });
}

describe('audit actions', () => {
  it('names every route of the administrative API', () => {
    const routes = controllerRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(9);
    for (const route of routes)
      expect([route, auditActionOf(route.method, route.path)]).not.toEqual([route, 'route.unknown']);
  });

  it.each([
    ['POST', '/v1/ca/initialize', 'ca.initialize'],
    ['POST', '/v2/ca/initialize', 'ca.initialize-v2'],
    ['GET', '/v2/ca', 'ca.list'],
    ['POST', '/v2/ca/issuing', 'ca.add-issuing'],
    ['POST', '/v2/ca/root/renew', 'ca.renew-root'],
    ['POST', `/v2/ca/${ID}/revoke`, 'ca.revoke'],
    ['POST', '/v1/certificates', 'certificate.issue'],
    ['GET', '/v1/certificates', 'certificate.list'],
    ['GET', '/v1/certificates/expiring', 'certificate.list-expiring'],
    ['GET', `/v1/certificates/${ID}`, 'certificate.get'],
    ['HEAD', `/v1/certificates/${ID}`, 'certificate.get'],
    ['POST', `/v1/certificates/${ID}/renew`, 'certificate.renew'],
    ['POST', `/v1/certificates/${ID}/revoke`, 'certificate.revoke'],
    ['POST', '/v2/certificates', 'certificate.issue-v2'],
    ['POST', `/v2/certificates/${ID}/renew`, 'certificate.renew-v2'],
    ['PUT', '/v2/policy', 'policy.set'],
    ['GET', '/v2/policy', 'policy.get'],
    ['DELETE', '/v2/policy', 'policy.delete'],
    ['POST', '/v2/acme/eab-keys', 'acme.eab-key.create'],
    ['DELETE', '/v2/acme/eab-keys/abc_DEF-1', 'acme.eab-key.disable'],
    ['POST', `/acme/${ID}/new-order`, 'acme.request'],
    ['HEAD', `/acme/${ID}/new-nonce`, 'acme.request'],
    ['POST', '/v1/certificates/', 'certificate.issue'],
    ['POST', '/V1/CA/INITIALIZE', 'ca.initialize'],
    ['DELETE', '/v1/certificates', 'route.unknown'],
    ['GET', '/no/such/route', 'route.unknown'],
  ])('%s %s is %s', (method, path, action) => {
    expect(auditActionOf(method, path)).toBe(action);
  });

  it('leaves health, the OpenAPI document and its viewer out', () => {
    for (const path of [
      '/health/live',
      '/health/ready',
      '/openapi.json',
      '/docs',
      '/docs/',
      '/docs/swagger-ui.css',
    ])
      expect(isAuditedPath(path)).toBe(false);
    for (const path of ['/v1/ca/initialize', '/v1/certificates', '/', '/healthz', '/docsx', '/no/such'])
      expect(isAuditedPath(path)).toBe(true);
  });

  it('records the path only, never a download token, and caps its length', () => {
    expect(auditResourceOf('/v1/certificates')).toBe('/v1/certificates');
    expect(auditResourceOf('/v1/downloads/secret-token-value')).toBe('/v1/downloads/{token}');
    expect(auditResourceOf(`/${'a'.repeat(2000)}`).length).toBeLessThanOrEqual(513);
  });
});
