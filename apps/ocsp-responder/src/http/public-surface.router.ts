import { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '@ca/persistence';
import { serveCaCertificate } from '../ca-certificates/ca-certificate.http';
import { CaCertificateStore } from '../ca-certificates/ca-certificate.store';
import { serveCrl, serveTenantCrl } from '../crls/crl.http';
import { CrlStore } from '../crls/crl.store';
import { OcspHttp } from '../ocsp/ocsp.http';
import { methodNotAllowed } from './method-not-allowed';
import { sendBody } from './send-body';
import { serviceUnavailable } from './service-unavailable';

export interface PublicSurfaceDependencies {
  caCertificates: CaCertificateStore;
  crls: CrlStore;
  /** root.crl: the root's CRL of a tenant with an issuing CA. */
  rootCrls: CrlStore;
  /** The CRLs of issuing CAs added later, one per CA (docs/api.md#add-an-issuing-ca). */
  addedCaCrls: CrlStore;
  ocsp: OcspHttp;
}

/** Answers one request, or returns false when it is not one of the routes below. */
export type PublicSurfaceRouter = (req: IncomingMessage, res: ServerResponse) => boolean;

const PREFIX = '/v1/tenants/';
/**
 * `ca/{caId}.crt`, `ca/{caId}.pem`, `ca/{caId}/crl` (docs/api.md#add-an-issuing-ca); a renewed
 * root's cross certificate at `ca/{caId}-cross.crt` and `-cross.pem` (docs/api.md#renew-the-root).
 */
const CA_BY_ID = /^ca\/([0-9a-fA-F-]{36})(-cross\.crt|-cross\.pem|\.crt|\.pem|\/crl)$/;
/** A restart or failover of the database takes seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The public distribution surface (docs/ocsp.md) on plain Node `http`, without Express or Nest
 * in the way: it is what relying parties call at high rates (OCSP above all).
 *
 *     GET|HEAD /v1/tenants/{tenantId}/ca.pem | ca.crt | issuing-ca.pem | issuing-ca.crt | crl | root.crl
 *     GET|HEAD /v1/tenants/{tenantId}/ca/{caId}.crt | ca/{caId}.pem | ca/{caId}/crl
 *     GET|HEAD /v1/tenants/{tenantId}/ca/{caId}-cross.crt | ca/{caId}-cross.pem
 *     POST     /v1/tenants/{tenantId}/ocsp                      (other methods but GET/HEAD: 405)
 *     GET|HEAD /v1/tenants/{tenantId}/ocsp/{base64 request}    (other methods: 405)
 *
 * A database that cannot be reached is a 503 with Retry-After, never a 500. Anything else
 * (health, other paths) is left to the Nest application, whose `PublicSurfaceErrorsFilter`
 * answers OCSP paths with malformedRequest and the rest with JSON.
 */
export function publicSurfaceRouter(deps: PublicSurfaceDependencies): PublicSurfaceRouter {
  const { ocsp } = deps;
  const logger = new Logger('PublicSurface');
  const failed = (res: ServerResponse) => (err: unknown) => {
    if (isDatabaseUnavailable(err)) {
      logger.warn({ err }, 'request failed: database unavailable');
      return serviceUnavailable(res, DATABASE_RETRY_AFTER_SECONDS, 'The distribution point is unavailable.');
    }
    logger.error({ err }, 'request failed');
    if (res.headersSent) return void res.destroy();
    sendBody(
      res,
      500,
      'application/json; charset=utf-8',
      Buffer.from('{"statusCode":500,"message":"Error"}'),
    );
  };

  return (req, res) => {
    const url = req.url ?? '';
    if (!url.startsWith(PREFIX)) return false;
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const slash = path.indexOf('/', PREFIX.length);
    if (slash === -1) return false;
    const tenantId = tenantIdOf(path.slice(PREFIX.length, slash));
    const rest = path.slice(slash + 1);
    const method = req.method;
    const read = method === 'GET' || method === 'HEAD';

    if (rest === 'ocsp' || rest === 'ocsp/') {
      // GET without a request: left to Nest, which answers it malformedRequest.
      if (read) return false;
      if (method !== 'POST') return methodNotAllowedHere(req, res, 'POST');
      ocsp.post(tenantId, req, res);
      return true;
    }
    if (rest.startsWith('ocsp/')) {
      if (!read) return methodNotAllowedHere(req, res, 'GET, HEAD');
      ocsp.get(tenantId, rest.slice('ocsp/'.length), req, res).catch(failed(res));
      return true;
    }
    if (!read) return false;
    const resource = rest.endsWith('/') ? rest.slice(0, -1) : rest;
    const byId = CA_BY_ID.exec(resource);
    if (byId) {
      const [, caId, kind] = byId;
      if (kind === '/crl') serveTenantCrl(deps, tenantId, caId, req, res).catch(failed(res));
      else {
        const format = kind.endsWith('.pem') ? 'pem' : 'der';
        const cross = kind.startsWith('-cross');
        serveCaCertificate(deps.caCertificates, format, tenantId, req, res, { caId, cross }).catch(
          failed(res),
        );
      }
      return true;
    }
    switch (resource) {
      case 'crl':
        serveTenantCrl(deps, tenantId, undefined, req, res).catch(failed(res));
        return true;
      case 'root.crl':
        serveCrl(deps.rootCrls, tenantId, req, res).catch(failed(res));
        return true;
      case 'ca.pem':
        serveCaCertificate(deps.caCertificates, 'pem', tenantId, req, res).catch(failed(res));
        return true;
      case 'ca.crt':
        serveCaCertificate(deps.caCertificates, 'der', tenantId, req, res).catch(failed(res));
        return true;
      case 'issuing-ca.pem':
        serveCaCertificate(deps.caCertificates, 'pem', tenantId, req, res, 'issuing').catch(failed(res));
        return true;
      case 'issuing-ca.crt':
        serveCaCertificate(deps.caCertificates, 'der', tenantId, req, res, 'issuing').catch(failed(res));
        return true;
      default:
        return false;
    }
  };
}

/** 405 without reading the body (RFC 9110 15.5.6); the request was handled. */
function methodNotAllowedHere(req: IncomingMessage, res: ServerResponse, allow: string): true {
  req.resume();
  methodNotAllowed(res, allow);
  return true;
}

/** The tenant segment %-decoded; one that does not decode names no tenant (the stores find none). */
function tenantIdOf(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
