import { IncomingMessage, ServerResponse } from 'node:http';
import { answerConditionally } from '../http/conditional-get';
import { notFoundProblem } from '../http/not-found';
import { sendBody } from '../http/send-body';
import { CrlStore } from './crl.store';

/**
 * Caches may keep a CRL this long before revalidating with its ETag; short, so that a revocation
 * reaches relying parties behind a CDN within a minute, while the origin answers 304s cheaply.
 */
const CRL_MAX_AGE_SECONDS = 60;

/** The tenant's newest CRL, DER, `application/pkix-crl` (RFC 5280 4.2.1.13). GET and HEAD. */
export async function serveCrl(
  store: CrlStore,
  tenantId: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const crl = await store.find(tenantId);
  if (!crl) return notFoundProblem(res, 'No CRL is published for this tenant.');
  const untilNextUpdate = (crl.nextUpdate.getTime() - Date.now()) / 1000;
  const maxAgeSeconds = Math.min(CRL_MAX_AGE_SECONDS, untilNextUpdate);
  if (answerConditionally(req, res, { etag: crl.etag, lastModified: crl.thisUpdate, maxAgeSeconds })) return;
  res.setHeader('Expires', crl.nextUpdate.toUTCString());
  sendBody(res, 200, 'application/pkix-crl', crl.der);
}
