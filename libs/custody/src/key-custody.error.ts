export type KeyCustodyFailure =
  /** The arguments are unusable: empty tenantId or keyId, a KEK of the wrong size. */
  | 'invalid-argument'
  /** The stored key is of an algorithm, format version or backend this custody does not handle. */
  | 'unsupported-key'
  /** The stored key does not open: altered, made for another tenant or key, or under another KEK. */
  | 'key-unavailable';

/** A custody failure. Its message names tenant and key ids, never key material. */
export class KeyCustodyError extends Error {
  override readonly name = 'KeyCustodyError';

  constructor(
    readonly failure: KeyCustodyFailure,
    message: string,
  ) {
    super(message);
  }
}
