import { DerReader, readSingleElement } from '../der-reader';
import { contextConstructed, TAG } from '../der-writer';
import { PkiFormatError } from '../pki-format.error';
import { extendedKeyUsages, isCa, OCSP_SIGNING } from './extension-values';
import { type Lint, type LintFinding, runLints } from './lint';
import { lintFailed } from './lint-failed.error';
import { readTbsCertificate } from './tbs-certificate.view';

/**
 * A GeneralizedTime `YYYYMMDDHHMMSSZ` as the number YYYYMMDDHHMMSS: it orders as the times do, and
 * reading it makes no Date (each signed OCSP answer is linted).
 */
type TimeKey = number;

/** CertStatus unknown [2] IMPLICIT UnknownInfo (NULL), RFC 6960 4.2.1. */
const UNKNOWN_STATUS_TAG = 0x82;

/** The times of one SingleResponse (RFC 6960 4.2.1), and whether its certStatus is unknown. */
interface SingleResponseTimes {
  unknown: boolean;
  thisUpdate: TimeKey;
  nextUpdate: TimeKey | undefined;
}

/** The parts of a ResponseData (RFC 6960 4.2.1) the OCSP lints read. */
export interface ResponseDataView {
  producedAt: TimeKey;
  responses: SingleResponseTimes[];
}

/** OCSP answers as this responder signs them (RFC 6960 4.2.1, 4.2.2.1; RFC 5019 2.2.4). */
export const OCSP_RESPONSE_LINTS: readonly Lint<ResponseDataView>[] = [
  {
    // An `unknown` answer leaves nextUpdate out on purpose (RFC 6960 2.4: newer information is
    // always available), so that nobody caches it; good and revoked answers must carry one.
    name: 'e_ocsp_next_update_missing',
    source: 'RFC 5019 2.2.4',
    check: ({ responses }) =>
      responses.some(({ unknown, nextUpdate }) => !unknown && nextUpdate === undefined)
        ? 'a good or revoked SingleResponse has no nextUpdate'
        : undefined,
  },
  {
    name: 'e_ocsp_this_update_after_next_update',
    source: 'RFC 6960 4.2.2.1',
    check: ({ responses }) =>
      responses.some(({ thisUpdate, nextUpdate }) => nextUpdate !== undefined && thisUpdate > nextUpdate)
        ? 'a SingleResponse has thisUpdate after nextUpdate'
        : undefined,
  },
  {
    name: 'e_ocsp_produced_at_after_next_update',
    source: 'RFC 6960 4.2.2.1',
    check: ({ producedAt, responses }) =>
      responses.some(({ nextUpdate }) => nextUpdate !== undefined && producedAt > nextUpdate)
        ? 'producedAt is after the nextUpdate of a SingleResponse'
        : undefined,
  },
];

/** Reads a ResponseData; throws PkiFormatError when it is not DER of that shape. */
export function readResponseData(responseData: Uint8Array): ResponseDataView {
  const outer = readSingleElement(responseData, 'ResponseData', TAG.sequence);
  const reader = new DerReader(responseData, outer.contentStart, outer.end);
  reader.readOptional('version', contextConstructed(0));
  reader.read('responderID');
  const producedAt = generalizedTime(reader, 'producedAt');
  const all = reader.inside(reader.read('responses', TAG.sequence));
  const responses: SingleResponseTimes[] = [];
  while (!all.atEnd) {
    const single = all.inside(all.read('SingleResponse', TAG.sequence));
    single.read('certID', TAG.sequence);
    const unknown = single.read('certStatus').tag === UNKNOWN_STATUS_TAG;
    const thisUpdate = generalizedTime(single, 'thisUpdate');
    const next = single.readOptional('nextUpdate', contextConstructed(0));
    responses.push({
      unknown,
      thisUpdate,
      nextUpdate: next ? generalizedTime(single.inside(next), 'nextUpdate') : undefined,
    });
  }
  return { producedAt, responses };
}

function generalizedTime(reader: DerReader, what: string): TimeKey {
  const { bytes } = reader;
  const element = reader.read(what, TAG.generalizedTime);
  if (element.end - element.contentStart !== 15 || bytes[element.end - 1] !== 0x5a) {
    throw new PkiFormatError(`${what}: not a GeneralizedTime YYYYMMDDHHMMSSZ`);
  }
  let key = 0;
  for (let i = element.contentStart; i < element.end - 1; i++) {
    const digit = bytes[i] - 0x30;
    if (digit < 0 || digit > 9) throw new PkiFormatError(`${what}: not digits`);
    key = key * 10 + digit;
  }
  return key;
}

/** The lints a ResponseData fails; one finding `e_ocsp_not_der` when it cannot be read at all. */
export function lintOcspResponseData(responseData: Uint8Array): LintFinding[] {
  try {
    return runLints(OCSP_RESPONSE_LINTS, readResponseData(responseData));
  } catch (error) {
    if (!(error instanceof PkiFormatError)) throw error;
    return [{ lint: 'e_ocsp_not_der', message: error.message }];
  }
}

/** Throws CERTIFICATE_LINT_FAILED (and counts it) unless the ResponseData passes every lint. */
export function assertOcspResponseDataLints(responseData: Uint8Array): void {
  const findings = lintOcspResponseData(responseData);
  if (findings.length > 0) throw lintFailed('OCSP response', findings);
}

/**
 * The certificate whose key signs OCSP answers: the CA itself, or a delegated signer with EKU
 * id-kp-OCSPSigning (RFC 6960 4.2.2.2). Takes the DER of the whole certificate.
 */
export function lintOcspResponderCertificate(certificateDer: Uint8Array): LintFinding[] {
  try {
    const certificate = new DerReader(certificateDer).inside(
      readSingleElement(certificateDer, 'Certificate', TAG.sequence),
    );
    const tbs = certificate.read('tbsCertificate', TAG.sequence);
    const view = readTbsCertificate(certificate.encoding(tbs));
    return isCa(view) || extendedKeyUsages(view).includes(OCSP_SIGNING)
      ? []
      : [
          {
            lint: 'e_ocsp_responder_without_ocsp_signing',
            message: 'the responder certificate has no EKU OCSPSigning',
          },
        ];
  } catch (error) {
    // Not a certificate at all: the builder's own parsing reports that (PkiFormatError).
    if (!(error instanceof PkiFormatError)) throw error;
    return [];
  }
}

export function assertOcspResponderCertificateLints(certificateDer: Uint8Array): void {
  const findings = lintOcspResponderCertificate(certificateDer);
  if (findings.length > 0) throw lintFailed('OCSP response', findings);
}
