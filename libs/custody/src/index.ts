export {
  CUSTODY_KEY_ALGORITHMS,
  type CustodyKeyParams,
  CUSTODY_ALGORITHM,
  custodyKeyParams,
  DEFAULT_CUSTODY_KEY_ALGORITHM,
} from './key-algorithms';
export { KeyCustodyError, type KeyCustodyFailure } from './key-custody.error';
export {
  type CustodiedKey,
  type CustodyKeyAlgorithm,
  type CustodyKeyContext,
  KeyCustody,
  type OpenedSigningKey,
} from './key-custody.port';
export { LocalKeyCustody } from './local/local-key-custody.adapter';
export { type LocalKekOptions, loadOrCreateLocalKek } from './local/local-kek';
export {
  beginKekFileRotation,
  type KekFileRotation,
  readPreviousLocalKek,
  removePreviousLocalKek,
} from './local/kek-file-rotation';
export { openPkcs11KeyCustody } from './pkcs11/open-pkcs11-key-custody';
export type { Pkcs11KeyCustody } from './pkcs11/pkcs11-key-custody.adapter';
export { type Pkcs11TokenOptions } from './pkcs11/pkcs11-token';
export * from './sealed-box';
