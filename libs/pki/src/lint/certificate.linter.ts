import { PkiFormatError } from '../pki-format.error';
import { CRITICALITY_LINTS } from './criticality.lints';
import { KEY_IDENTIFIER_LINTS } from './key-identifier.lints';
import { KEY_USAGE_LINTS } from './key-usage.lints';
import { type Lint, type LintFinding, runLints } from './lint';
import { lintFailed } from './lint-failed.error';
import { NAME_ENCODING_LINTS } from './name-encoding.lints';
import { serialLints } from './serial.lints';
import { SUBJECT_ALT_NAME_LINTS } from './subject-alt-name.lints';
import { readTbsCertificate, type TbsCertificateView } from './tbs-certificate.view';
import { URL_LINTS } from './url.lints';
import { VALIDITY_LINTS } from './validity.lints';

/** Every lint a TBSCertificate of this CA passes: leaf, OCSP signer and CA alike. */
export const CERTIFICATE_LINTS: readonly Lint<TbsCertificateView>[] = [
  ...serialLints<TbsCertificateView>((view) => view.serial, 'cert'),
  ...VALIDITY_LINTS,
  ...NAME_ENCODING_LINTS,
  ...CRITICALITY_LINTS,
  ...KEY_USAGE_LINTS,
  ...SUBJECT_ALT_NAME_LINTS,
  ...KEY_IDENTIFIER_LINTS,
  ...URL_LINTS,
];

/** The lints a TBSCertificate fails; one finding `e_cert_not_der` when it cannot be read at all. */
export function lintTbsCertificate(tbs: Uint8Array): LintFinding[] {
  let view: TbsCertificateView;
  try {
    view = readTbsCertificate(tbs);
  } catch (error) {
    if (!(error instanceof PkiFormatError)) throw error;
    return [{ lint: 'e_cert_not_der', message: error.message }];
  }
  try {
    return runLints(CERTIFICATE_LINTS, view);
  } catch (error) {
    if (!(error instanceof PkiFormatError)) throw error;
    return [{ lint: 'e_cert_extension_not_der', message: error.message }];
  }
}

/** Throws CERTIFICATE_LINT_FAILED (and counts it) unless the TBSCertificate passes every lint. */
export function assertTbsCertificateLints(tbs: Uint8Array): void {
  const findings = lintTbsCertificate(tbs);
  if (findings.length > 0) throw lintFailed('certificate', findings);
}
