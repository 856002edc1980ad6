import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { CaError, ErrorCode, SignCrlCommand, SignCrlResult } from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { BlobStore } from '@ca/messaging';
import {
  assertTbsCertListLints,
  inspectTbsCertList,
  parseCertificate,
  signatureAlgorithmOf,
  signTbs,
} from '@ca/pki';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';
import { CrlLedgerCheck } from './crl-ledger-check';

/**
 * Signs a CRL the revocation context assembled (Boulder's split: it builds the CRL, the CA key
 * stays here). The request names the TBSCertList's SHA-256, and only bytes with that digest are
 * read, checked and signed, once. Only a TBSCertList of this tenant's CA (the one that signs leaves, or the root for
 * root.crl) is signed: the DER is inspected first, so
 * the key can never be made to sign a certificate or anything else; and its entries, times and
 * number must agree with issuance's own ledger (CrlLedgerCheck), so whoever reaches the bus cannot
 * have a revoked serial dropped or the CRLNumber exhausted.
 */
export class SignCrlHandler {
  private readonly logger = new Logger('SignCrlHandler');

  constructor(
    private readonly signer: CertificateAuthoritySigner,
    private readonly blobs: BlobStore,
    private readonly ledger: CrlLedgerCheck,
  ) {}

  async execute(input: SignCrlCommand): Promise<SignCrlResult> {
    const command = await validateDto(SignCrlCommand, input);
    const { authority, privateKey } = await this.signer.forIssuer(
      command.tenantId,
      command.issuer,
      command.caId,
    );
    const tbs = await this.blobs.get(command.tbsBlobRef);
    if (!tbs)
      throw CaError.validation([{ field: 'tbsBlobRef', message: 'no TBSCertList under this reference' }]);
    // These bytes, read once, are the ones checked below and the ones signed; they must be the
    // ones the requester built and named by digest (a blob replaced in the store is refused).
    if (createHash('sha256').update(tbs).digest('hex') !== command.tbsSha256) {
      this.logger.warn(
        { tenantId: command.tenantId },
        'CRL refused: the TBSCertList is not the one the request names',
      );
      throw new CaError(
        ErrorCode.Forbidden,
        'The TBSCertList under tbsBlobRef is not the one the request names: its SHA-256 differs from tbsSha256.',
      );
    }
    let inspected: ReturnType<typeof inspectTbsCertList>;
    try {
      inspected = inspectTbsCertList(tbs);
    } catch {
      throw CaError.validation([{ field: 'tbsBlobRef', message: 'not a v2 TBSCertList this CA signs' }]);
    }
    const ca = parseCertificate(new Uint8Array(authority.certificateDer));
    if (!Buffer.from(inspected.issuerDer).equals(Buffer.from(ca.subjectDer))) {
      throw new CaError(ErrorCode.Forbidden, 'The CRL names another issuer than this tenant CA.');
    }
    if (
      inspected.authorityKeyIdentifierHex &&
      inspected.authorityKeyIdentifierHex !== ca.subjectKeyIdentifierHex
    ) {
      throw new CaError(ErrorCode.Forbidden, 'The CRL names another CA key than this tenant CA.');
    }
    if (inspected.signatureAlgorithm !== signatureAlgorithmOf(privateKey)) {
      throw new CaError(ErrorCode.Forbidden, "The CRL names another signature algorithm than this CA's key.");
    }
    try {
      await this.ledger.admit(authority, tbs, inspected);
    } catch (error) {
      if (error instanceof CaError) {
        this.logger.warn(
          { tenantId: command.tenantId, crlNumber: inspected.crlNumber.toString(), reason: error.message },
          'CRL refused: it does not match the ledger',
        );
      }
      throw error;
    }
    assertTbsCertListLints(tbs); // docs/lints.md
    const signature = await signTbs(tbs, privateKey);
    return { signature: Buffer.from(signature).toString('base64') };
  }
}
