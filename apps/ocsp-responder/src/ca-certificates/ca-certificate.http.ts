import { IncomingMessage, ServerResponse } from 'node:http';
import { derToPem } from '@ca/pki';
import { answerConditionally } from '../http/conditional-get';
import { notFoundProblem } from '../http/not-found';
import { sendBody } from '../http/send-body';
import { CaCertificateStore } from './ca-certificate.store';

/** A day: a CA certificate does not change; caches revalidate cheaply with the ETag. */
const CA_MAX_AGE_SECONDS = 86_400;

export type CaCertificateFormat = 'pem' | 'der';

const CONTENT_TYPE: Record<CaCertificateFormat, string> = {
  pem: 'application/x-pem-file',
  der: 'application/pkix-cert',
};

/**
 * `ca.*` is the root; `issuing-ca.*` the issuing CA that signs leaves now (docs/api.md#chains);
 * `ca/{caId}.*` one CA of the tenant by id, current or retired (docs/api.md#add-an-issuing-ca);
 * with `cross`, a renewed root's cross certificate (docs/api.md#renew-the-root).
 */
export type CaCertificateRole = 'root' | 'issuing' | { caId: string; cross?: boolean };

/**
 * A tenant CA certificate, as PEM (`ca.pem`, a trust root to install; `issuing-ca.pem`) and
 * as DER (`ca.crt`, `issuing-ca.crt`: the AIA caIssuers targets, `application/pkix-cert`, RFC 5280
 * 4.2.2.1). GET and HEAD; 404 for a tenant without that CA.
 */
export async function serveCaCertificate(
  store: CaCertificateStore,
  format: CaCertificateFormat,
  tenantId: string,
  req: IncomingMessage,
  res: ServerResponse,
  role: CaCertificateRole = 'root',
): Promise<void> {
  const ca =
    typeof role === 'object'
      ? await store.certificateOf(tenantId, role.caId, role.cross)
      : (await store.findOrWait(tenantId))?.[role === 'root' ? 'anchor' : 'issuing'];
  if (!ca)
    return notFoundProblem(
      res,
      role === 'root'
        ? 'No certificate authority is published for this tenant.'
        : role === 'issuing'
          ? 'No issuing CA is published for this tenant.'
          : role.cross
            ? 'No root of this tenant made by renewal has this id.'
            : 'No CA of this tenant has this id.',
    );
  // The two representations differ, so their validators must too (RFC 9110 8.8.3).
  const etag = `${ca.etag.slice(0, -1)}-${format}"`;
  if (
    answerConditionally(req, res, { etag, lastModified: ca.lastModified, maxAgeSeconds: CA_MAX_AGE_SECONDS })
  )
    return;
  const body = format === 'der' ? ca.der : Buffer.from(derToPem(ca.der), 'ascii');
  sendBody(res, 200, CONTENT_TYPE[format], body);
}
