import { randomBytes } from 'node:crypto';
import {
  CertificateDelivery,
  IssueCertificateResponse,
  KeyAlgorithm,
  Pkcs12Profile,
  RenewCertificateResponse,
  ResponseFormat,
} from '@ca/contracts';
import { buildPkcs12, pemToDer } from '@ca/pki';
import { DownloadFile, DownloadLinks } from '../downloads/download-links';
import { unavailableAs503 } from '../downloads/unavailable-as-503';
import { CertificateWithKey } from './leaf-key-pair';

/** 24 random bytes: 192 bits, above the 128 the issue asks for; 32 base64url characters. */
const PASSWORD_BYTES = 24;

export interface DeliveryRequest {
  responseFormat?: string;
  passwordProtected?: boolean;
  /** v2 only; read only with passwordProtected (docs/certificate-profile.md). */
  pkcs12Profile?: Pkcs12Profile;
}

/**
 * The v2 body as issuance takes it: the PKCS#12 profile concerns the delivery and the key
 * algorithm the key the gateway makes, which are the gateway's alone (the renew command's body
 * has no such fields), and a CSR travels as the command's subjectPublicKey.
 */
export function issuanceRequestOf<
  T extends { pkcs12Profile?: Pkcs12Profile; csrPem?: string; keyAlgorithm?: KeyAlgorithm },
>(body: T): Omit<T, 'pkcs12Profile' | 'csrPem' | 'keyAlgorithm'> {
  const request = { ...body };
  delete request.pkcs12Profile;
  delete request.csrPem;
  delete request.keyAlgorithm;
  return request;
}

/**
 * docs/api.md#issuance-answer: turns what issuance minted into the delivery fields the caller asked for. Built in
 * the gateway so that the PKCS#12 password never leaves this process: it is made here, returned
 * once and forgotten (not stored, logged or audited).
 */
export class CertificateDeliverer {
  constructor(private readonly links: DownloadLinks) {}

  /** The answer to an issue call (v1 and v2). */
  async issueResponse(
    issued: CertificateWithKey,
    request: DeliveryRequest,
  ): Promise<IssueCertificateResponse> {
    const { certificateId, serialNumber, expiresAt } = issued;
    return { certificateId, serialNumber, expiresAt, ...(await this.deliver(issued, request)) };
  }

  /** The answer to a renew call (v1 and v2): the new certificate's id as `newCertificateId`. */
  async renewResponse(
    renewed: CertificateWithKey,
    request: DeliveryRequest,
  ): Promise<RenewCertificateResponse> {
    const { certificateId: newCertificateId, serialNumber, expiresAt } = renewed;
    return { newCertificateId, serialNumber, expiresAt, ...(await this.deliver(renewed, request)) };
  }

  private async deliver(issued: CertificateWithKey, request: DeliveryRequest): Promise<CertificateDelivery> {
    // Issued for the caller's CSR: the key stays with the caller, and the request rules allowed
    // nothing but the certificate and its chain in Text (docs/api.md#csr-issuance).
    if (issued.privateKeyPem === undefined)
      return { certificatePem: issued.certificatePem, chainPem: issued.chainPem };
    return this.deliverWithKey({ ...issued, privateKeyPem: issued.privateKeyPem }, request);
  }

  private async deliverWithKey(
    issued: CertificateWithKey & { privateKeyPem: string },
    request: DeliveryRequest,
  ): Promise<CertificateDelivery> {
    const password =
      request.passwordProtected === true ? randomBytes(PASSWORD_BYTES).toString('base64url') : undefined;
    const pfx =
      password === undefined
        ? undefined
        : Buffer.from(await pkcs12Of(issued, password, request.pkcs12Profile ?? Pkcs12Profile.Modern));

    if (request.responseFormat !== ResponseFormat.File) {
      return {
        certificatePem: issued.certificatePem,
        chainPem: issued.chainPem,
        privateKeyPem: issued.privateKeyPem,
        ...(pfx && password ? { pfxBase64: pfx.toString('base64'), password } : {}),
      };
    }
    const files: DownloadFile[] = [
      {
        kind: 'certificate',
        fileName: `${issued.certificateId}.pem`,
        content: Buffer.from(issued.certificatePem),
      },
      {
        kind: 'private-key',
        fileName: `${issued.certificateId}.key.pem`,
        content: Buffer.from(issued.privateKeyPem),
      },
      ...(pfx ? [{ kind: 'pkcs12' as const, fileName: `${issued.certificateId}.p12`, content: pfx }] : []),
    ];
    const { urls, expiresAt } = await unavailableAs503(() => this.links.create(files));
    return {
      certificateDownloadUrl: urls[0],
      privateKeyDownloadUrl: urls[1],
      downloadUrlExpiresAt: expiresAt.toISOString(),
      ...(pfx && password ? { pfxDownloadUrl: urls[2], password } : {}),
    };
  }
}

/** Key stores name the entry by its friendlyName, which is the certificate's commonName. */
function pkcs12Of(
  issued: CertificateWithKey & { privateKeyPem: string },
  password: string,
  profile: Pkcs12Profile,
): Promise<Uint8Array> {
  return buildPkcs12(
    {
      privateKeyPkcs8: pemToDer(issued.privateKeyPem, 'PRIVATE KEY'),
      certificateDer: pemToDer(issued.certificatePem, 'CERTIFICATE'),
      // The issuer's certificate: the issuing CA when one signed (docs/api.md#chains), else the root.
      caCertificatesDer: [pemToDer(issued.caCertificatePem, 'CERTIFICATE')],
    },
    password,
    profile,
  );
}
