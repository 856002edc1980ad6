import { ConfigError, type CaManagerConfig } from '@ca/config';
import {
  KeyCustody,
  KeyCustodyError,
  LocalKeyCustody,
  openPkcs11KeyCustody,
  loadOrCreateLocalKek,
  readPreviousLocalKek,
} from '@ca/custody';

/**
 * The custody of the CA keys (docs/api.md#configuration, KEY_CUSTODY): `local` under CA_KEK (in embedded
 * mode generated into DATA_DIR/keys/ca-kek), or `pkcs11` on the configured token. Any problem is
 * one configuration line naming the setting at fault, before the service starts.
 */
export async function openIssuanceCustody(config: CaManagerConfig): Promise<KeyCustody> {
  if (config.keyCustody === 'pkcs11') return openTokenCustody(config);
  try {
    const kek = loadOrCreateLocalKek({
      kekBase64: config.caKek,
      dataDir: config.dataDir,
      embedded: config.embedded,
    });
    // A KEK rotation interrupted in embedded mode left the old KEK beside the new one: open with
    // both until issuance has finished it (finishInterruptedKekRotation).
    const previous =
      config.embedded && config.caKek === undefined ? readPreviousLocalKek(config.dataDir) : undefined;
    return new LocalKeyCustody(kek, previous ? [previous] : []);
  } catch (error) {
    const problem = error instanceof Error ? error.message.replace(/^CA_KEK:?\s*/, '') : 'is not usable';
    throw new ConfigError('CA_KEK', problem);
  }
}

async function openTokenCustody({ pkcs11 }: CaManagerConfig): Promise<KeyCustody> {
  try {
    // loadConfig has checked that all three are set.
    return await openPkcs11KeyCustody({
      library: pkcs11.library!,
      tokenLabel: pkcs11.tokenLabel!,
      pin: pkcs11.pin!,
    });
  } catch (error) {
    const setting = error instanceof KeyCustodyError ? /^(PKCS11_[A-Z_]+): (.*)$/.exec(error.message) : null;
    if (setting) throw new ConfigError(setting[1], setting[2]);
    throw new ConfigError('PKCS11_LIBRARY', error instanceof Error ? error.message : String(error));
  }
}
