/** Input that is not the PEM or DER structure it claims to be. Messages never echo key material. */
export class PkiFormatError extends Error {
  override readonly name = 'PkiFormatError';
}
