import { IncomingMessage, ServerResponse } from 'node:http';
import { answerConditionally } from '../http/conditional-get';
import { notFoundProblem } from '../http/not-found';
import { sendBody } from '../http/send-body';
import { CaCertificateStore } from '../ca-certificates/ca-certificate.store';
import { CrlStore } from './crl.store';

/**
 * Caches may keep a CRL this long before revalidating with its ETag; short, so that a revocation
 * reaches relying parties behind a CDN within a minute, while the origin answers 304s cheaply.
 */
const CRL_MAX_AGE_SECONDS = 60;

/** The newest CRL of a store's tenant or CA, DER, `application/pkix-crl` (RFC 5280 4.2.1.13). GET and HEAD. */
export async function serveCrl(
  store: CrlStore,
  key: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const crl = await store.find(key);
  if (!crl) return notFoundProblem(res, 'No CRL is published for this tenant.');
  const untilNextUpdate = (crl.nextUpdate.getTime() - Date.now()) / 1000;
  const maxAgeSeconds = Math.min(CRL_MAX_AGE_SECONDS, untilNextUpdate);
  if (answerConditionally(req, res, { etag: crl.etag, lastModified: crl.thisUpdate, maxAgeSeconds })) return;
  res.setHeader('Expires', crl.nextUpdate.toUTCString());
  sendBody(res, 200, 'application/pkix-crl', crl.der);
}

/** The tenant's CRL stores, by the CA they hold CRLs of. */
export interface TenantCrls {
  caCertificates: CaCertificateStore;
  /** The CA made at initialization that signs (or signed) leaves. */
  crls: CrlStore;
  /** root.crl: the root's CRL of a tenant whose root signs no leaves. */
  rootCrls: CrlStore;
  /** Issuing CAs added later, one CRL each. */
  addedCaCrls: CrlStore;
}

/**
 * `/crl` (no `caId`): the CRL of the CA made at initialization, which its leaves name, also after
 * a rollover. `/ca/{caId}/crl`: the CRL of that CA of the tenant, current or retired
 * (docs/api.md#add-an-issuing-ca), which its leaves name as their CRL distribution point.
 */
export async function serveTenantCrl(
  stores: TenantCrls,
  tenantId: string,
  caId: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // `/crl` is the CDP that leaves of the CA made at initialization carry, so it stays that CA's
  // CRL after a rollover: a CRL at a certificate's distribution point must be its issuer's
  // (RFC 5280 4.2.1.13, 6.3.3 (b)). Leaves of CAs added later name `ca/{caId}/crl`.
  if (caId === undefined) return serveCrl(stores.crls, tenantId, req, res);
  const ca = await stores.caCertificates.find(tenantId);
  const id = caId.toLowerCase();
  if (ca && id === ca.caId) return serveCrl(stores.crls, tenantId, req, res);
  if (ca && id === ca.rootCaId) return serveCrl(stores.rootCrls, tenantId, req, res);
  if (ca?.added.some((added) => added.caId === id)) return serveCrl(stores.addedCaCrls, id, req, res);
  // A renewed root's CRL: the issuing CAs it signed that were revoked (docs/api.md#renew-the-root).
  if (ca?.renewedRoots.some((root) => root.caId === id)) return serveCrl(stores.addedCaCrls, id, req, res);
  notFoundProblem(res, 'No CA of this tenant has this id.');
}
