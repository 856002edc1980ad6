import { OcspCertStatus, OcspRequestInfo, buildOcspResponse } from '@ca/pki';
import { OcspSigner } from '../signers/ocsp-signer.keeper';

/**
 * The signed BasicOCSPResponse for `request` with one status per CertID, produced now (whole
 * seconds), valid `validitySeconds` but never past the signer's notAfter. RFC 6960 2.4: an
 * `unknown` carries no nextUpdate (newer information is always available).
 */
export async function signedOcspResponse(
  request: OcspRequestInfo,
  statuses: OcspCertStatus[],
  signer: OcspSigner,
  validitySeconds: number,
): Promise<{ der: Buffer; thisUpdate: Date; nextUpdate: Date }> {
  const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
  const nextUpdate = new Date(
    Math.min(thisUpdate.getTime() + validitySeconds * 1000, signer.notAfter.getTime()),
  );
  const der = Buffer.from(
    await buildOcspResponse({
      responses: request.certIds.map((certId, i) => ({
        certId,
        status: statuses[i],
        thisUpdate,
        ...(statuses[i].kind !== 'unknown' && { nextUpdate }),
      })),
      producedAt: thisUpdate,
      nonce: request.nonce,
      responderCertificateDer: signer.certificateDer,
      responderPrivateKey: signer.privateKey,
    }),
  );
  return { der, thisUpdate, nextUpdate };
}
