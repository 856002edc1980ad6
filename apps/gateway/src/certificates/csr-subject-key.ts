import { CaError, ErrorCode, MAX_CSR_PEM_LENGTH, SubjectPublicKey } from '@ca/contracts';
import { PkiFormatError, pemToDer } from '@ca/pki';

// RFC 7468 section 7; "NEW CERTIFICATE REQUEST" is what older OpenSSL and Windows certreq write.
const CSR_LABELS = ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST'];

const csrInvalid = (message: string) =>
  new CaError(ErrorCode.CsrInvalid, `csrPem ${message}.`, [{ field: 'csrPem', message }]);

/**
 * The command's key for a caller's CSR (docs/api.md#csr-issuance): the request's DER as
 * `pkcs10`. Only the envelope is checked here (size, one PEM block with a request label): issuance
 * reads the request, checks its key type and self-signature and takes its key.
 */
export function subjectKeyFromCsr(csrPem: string): SubjectPublicKey {
  if (csrPem.length > MAX_CSR_PEM_LENGTH) {
    throw csrInvalid(`must be at most ${MAX_CSR_PEM_LENGTH} characters`);
  }
  return { format: 'pkcs10', der: Buffer.from(decodeCsrPem(csrPem)).toString('base64') };
}

function decodeCsrPem(csrPem: string): Uint8Array {
  let firstError: PkiFormatError | undefined;
  for (const label of CSR_LABELS) {
    try {
      return pemToDer(csrPem, label);
    } catch (error) {
      if (!(error instanceof PkiFormatError)) throw error;
      firstError ??= error;
    }
  }
  throw csrInvalid(`is not a PEM certificate request: ${firstError?.message ?? 'no PEM block'}`);
}
