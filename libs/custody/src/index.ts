export { KeyCustodyError, type KeyCustodyFailure } from './key-custody.error';
export {
  type CustodiedKey,
  type CustodyKeyAlgorithm,
  type CustodyKeyContext,
  KeyCustody,
} from './key-custody.port';
export { LocalKeyCustody } from './local/local-key-custody.adapter';
export { type LocalKekOptions, loadOrCreateLocalKek } from './local/local-kek';
