import { X509Certificate, createPublicKey } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { decodeCertificate } from './certificate.parser';
import { EXTENSION_ID } from './extensions';
import { pemCertificatesToDer } from './pem-bundle';

/** Why an uploaded CA certificate and its chain are refused (docs/api.md#external-root). */
export type UploadedCaChainProblem =
  | 'unreadable'
  | 'key-mismatch'
  | 'not-ca'
  | 'not-valid-now'
  | 'signature'
  | 'issuer-not-ca'
  | 'path-length'
  | 'outlives-chain';

export class UploadedCaChainError extends Error {
  constructor(
    readonly problem: UploadedCaChainProblem,
    message: string,
  ) {
    super(message);
    this.name = 'UploadedCaChainError';
  }
}

export interface UploadedCaChain {
  certificateDer: Uint8Array;
  /** The CAs between the certificate and the root, the certificate's issuer first; may be empty. */
  intermediatesDer: Uint8Array[];
  /** The self-signed root that ends the chain: the trust anchor. */
  rootDer: Uint8Array;
}

interface Parsed {
  der: Uint8Array;
  node: X509Certificate;
  cA: boolean;
  pathLenConstraint?: number;
  keyCertSign: boolean;
  cRLSign: boolean;
  issuerDer: Uint8Array;
  subjectDer: Uint8Array;
  label: string;
}

/**
 * Checks the certificate a corporate CA made for one of our issuing CAs, with the chain of its
 * issuers (`chainPem`: the issuer first, the self-signed root last), before we sign anything with
 * it. In this order, the first failure thrown as `UploadedCaChainError`:
 *
 * - `unreadable`: not PEM, or not X.509 DER;
 * - `key-mismatch`: the certificate's key is not `publicKeySpki` (our key, the one of the CSR);
 * - `not-ca`: no basicConstraints cA TRUE, or keyUsage without keyCertSign or cRLSign: we sign
 *   leaves and the CRL at /crl with it (RFC 5280 4.2.1.9, 4.2.1.3);
 * - `not-valid-now`: a certificate of the upload is expired or not yet valid (RFC 5280 6.1.3 (a)(2));
 * - `signature`: a certificate is not signed by the next, its issuer Name is not the next one's
 *   subject (RFC 5280 6.1.3 (a)(1), (a)(4)), or the last is not self-signed;
 * - `issuer-not-ca`: an issuer without cA TRUE or keyUsage keyCertSign (RFC 5280 6.1.4 (k), (n));
 * - `path-length`: an issuer's pathLenConstraint does not allow the CAs below it, ours included
 *   (RFC 5280 4.2.1.9, 6.1.4 (l), (m));
 * - `outlives-chain`: the certificate ends after a certificate of its chain: a path is valid only
 *   while each of its certificates is (RFC 5280 6.1.3 (a)(2)), so its last days would certify
 *   nothing, while we would report it (and cap what it signs) by its own notAfter.
 *
 * Does not follow CRLs or OCSP of the corporate PKI: that is the relying parties' business.
 */
export function checkUploadedCaChain(input: {
  certificatePem: string;
  chainPem: string;
  publicKeySpki: Uint8Array;
  now: Date;
}): UploadedCaChain {
  const certificate = parseOne(input.certificatePem, 'certificatePem');
  const chain = parseAll(input.chainPem, 'chainPem');

  const ours = createPublicKey({ key: Buffer.from(input.publicKeySpki), format: 'der', type: 'spki' });
  if (!certificate.node.publicKey.equals(ours)) {
    throw new UploadedCaChainError(
      'key-mismatch',
      "certificatePem certifies another key than this CA's: have this CA's CSR signed",
    );
  }
  if (!certificate.cA || !certificate.keyCertSign || !certificate.cRLSign) {
    throw new UploadedCaChainError(
      'not-ca',
      'certificatePem is not a CA certificate: it needs basicConstraints CA:TRUE and keyUsage keyCertSign, cRLSign',
    );
  }
  for (const each of [certificate, ...chain]) {
    const from = new Date(each.node.validFrom);
    const to = new Date(each.node.validTo);
    if (input.now < from || input.now > to) {
      throw new UploadedCaChainError(
        'not-valid-now',
        `${each.label} is not valid now (valid from ${from.toISOString()} to ${to.toISOString()})`,
      );
    }
  }
  const path = [certificate, ...chain];
  for (let i = 0; i < path.length; i++) {
    const child = path[i];
    const issuer = path[i + 1] ?? child; // the last must be its own issuer
    if (!sameBytes(child.issuerDer, issuer.subjectDer) || !child.node.verify(issuer.node.publicKey)) {
      throw new UploadedCaChainError(
        'signature',
        issuer === child
          ? `${child.label} is not self-signed: chainPem must end with the root`
          : `${child.label} is not signed by ${issuer.label}: list the issuers in order, the issuer first`,
      );
    }
  }
  for (const issuer of chain) {
    if (!issuer.cA || !issuer.keyCertSign) {
      throw new UploadedCaChainError(
        'issuer-not-ca',
        `${issuer.label} may not certify CAs: it needs basicConstraints CA:TRUE and keyUsage keyCertSign`,
      );
    }
  }
  chain.forEach((issuer, index) => {
    // The CAs below this issuer that count (self-issued ones do not, RFC 5280 6.1.4 (l)), ours included.
    const below = path
      .slice(0, index + 1)
      .filter((each) => !sameBytes(each.issuerDer, each.subjectDer)).length;
    if (issuer.pathLenConstraint !== undefined && issuer.pathLenConstraint < below) {
      throw new UploadedCaChainError(
        'path-length',
        `${issuer.label} has pathLenConstraint ${issuer.pathLenConstraint}: it allows no CA ${below} level(s) below it`,
      );
    }
  });
  const ourEnd = new Date(certificate.node.validTo);
  for (const issuer of chain) {
    const end = new Date(issuer.node.validTo);
    if (ourEnd > end) {
      throw new UploadedCaChainError(
        'outlives-chain',
        `certificatePem ends ${ourEnd.toISOString()}, after ${issuer.label} (${end.toISOString()}): have the corporate CA make it end no later than its chain`,
      );
    }
  }
  return {
    certificateDer: certificate.der,
    intermediatesDer: chain.slice(0, -1).map((each) => each.der),
    rootDer: chain[chain.length - 1].der,
  };
}

function parseOne(pem: string, field: string): Parsed {
  const ders = parseDers(pem, field);
  if (ders.length !== 1) {
    throw new UploadedCaChainError(
      'unreadable',
      `${field} must hold exactly one certificate, not ${ders.length}`,
    );
  }
  return parse(ders[0], field);
}

function parseAll(pem: string, field: string): Parsed[] {
  return parseDers(pem, field).map((der, index) => parse(der, `${field} certificate ${index + 1}`));
}

function parseDers(pem: string, field: string): Uint8Array[] {
  try {
    return pemCertificatesToDer(pem);
  } catch (error) {
    throw new UploadedCaChainError('unreadable', `${field}: ${(error as Error).message}`);
  }
}

function parse(der: Uint8Array, label: string): Parsed {
  let certificate: pkijs.Certificate;
  let node: X509Certificate;
  try {
    certificate = decodeCertificate(der);
    node = new X509Certificate(der);
  } catch (error) {
    throw new UploadedCaChainError(
      'unreadable',
      `${label} is not an X.509 certificate: ${(error as Error).message}`,
    );
  }
  const extensions = certificate.extensions ?? [];
  const find = (oid: string) => extensions.find((extension) => extension.extnID === oid)?.parsedValue;
  const basicConstraints = find(EXTENSION_ID.basicConstraints);
  const keyUsage = find(EXTENSION_ID.keyUsage);
  const bits = keyUsage instanceof asn1js.BitString ? keyUsage.valueBlock.valueHexView : new Uint8Array(0);
  // KeyUsage bits (RFC 5280 4.2.1.3): keyCertSign (5) and cRLSign (6) of the first octet.
  const bit = (n: number) => ((bits[n >> 3] ?? 0) & (0x80 >> (n & 7))) !== 0;
  const constraints = basicConstraints instanceof pkijs.BasicConstraints ? basicConstraints : undefined;
  const pathLen =
    constraints?.pathLenConstraint instanceof asn1js.Integer
      ? constraints.pathLenConstraint.valueBlock.valueDec
      : constraints?.pathLenConstraint;
  return {
    der,
    node,
    cA: constraints?.cA === true,
    ...(typeof pathLen === 'number' ? { pathLenConstraint: pathLen } : {}),
    keyCertSign: bit(5),
    cRLSign: bit(6),
    // Names as encoded, compared octet for octet (RFC 5280 7.1 allows more; corporate CAs copy them).
    issuerDer: nameDer(certificate.issuer),
    subjectDer: nameDer(certificate.subject),
    label,
  };
}

function nameDer(name: pkijs.RelativeDistinguishedNames): Uint8Array {
  const decoded = name.valueBeforeDecode;
  return decoded && decoded.byteLength > 0
    ? new Uint8Array(decoded)
    : new Uint8Array(name.toSchema().toBER(false));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}
