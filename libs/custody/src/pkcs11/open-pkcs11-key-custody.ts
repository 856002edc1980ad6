import type { KeyCustody } from '../key-custody.port';
import type { Pkcs11TokenOptions } from './pkcs11-token';

/**
 * `KEY_CUSTODY=pkcs11`, loaded on demand: the PKCS#11 modules (a native addon) take most of a
 * second to load, which no process on `local` custody should pay.
 */
export async function openPkcs11KeyCustody(options: Pkcs11TokenOptions): Promise<KeyCustody> {
  const { Pkcs11KeyCustody } = await import('./pkcs11-key-custody.adapter');
  return new Pkcs11KeyCustody(options);
}
