import { ConfigError, type CaManagerConfig, type Pkcs11TokenSettings } from '@ca/config';
import {
  KeyCustody,
  KeyCustodyError,
  LocalKeyCustody,
  openPkcs11KeyCustody,
  loadOrCreateLocalKek,
  readPreviousLocalKek,
} from '@ca/custody';
import { CaKeyCustodies, type CustodyLog } from './ca-key-custodies';

/**
 * The custody of the CA keys (docs/api.md#configuration, KEY_CUSTODY): `local` under CA_KEK (in embedded
 * mode generated into DATA_DIR/keys/ca-kek), or `pkcs11` on the configured token, with root keys
 * in PKCS11_ROOT_TOKEN_LABEL's token when that is set (docs/operations.md#key-custody). Any
 * problem is one configuration line naming the setting at fault, before the service starts.
 */
export async function openIssuanceCustody(
  config: CaManagerConfig,
  log?: CustodyLog,
): Promise<CaKeyCustodies> {
  if (config.keyCustody === 'pkcs11') return openTokenCustodies(config, log);
  return CaKeyCustodies.single(openLocalCustody(config));
}

function openLocalCustody(config: CaManagerConfig): KeyCustody {
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

async function openTokenCustodies({ pkcs11 }: CaManagerConfig, log?: CustodyLog): Promise<CaKeyCustodies> {
  // loadConfig has checked that all three are set.
  const library = pkcs11.library!;
  const main = await openTokenCustody(library, { tokenLabel: pkcs11.tokenLabel!, pin: pkcs11.pin! });
  if (!pkcs11.root) return CaKeyCustodies.single(main);
  let root: KeyCustody;
  try {
    root = await openTokenCustody(library, pkcs11.root, ROOT_SETTINGS);
  } catch (error) {
    main.close();
    throw error;
  }
  return new CaKeyCustodies(main, root, log);
}

/** What a root token's failure is reported as: its own settings, not the main token's. */
const ROOT_SETTINGS: Record<string, string> = {
  PKCS11_TOKEN_LABEL: 'PKCS11_ROOT_TOKEN_LABEL',
  PKCS11_PIN: 'PKCS11_ROOT_PIN',
};

async function openTokenCustody(
  library: string,
  token: Pkcs11TokenSettings,
  settingNames: Record<string, string> = {},
): Promise<KeyCustody> {
  try {
    return await openPkcs11KeyCustody({ library, tokenLabel: token.tokenLabel, pin: token.pin });
  } catch (error) {
    const setting = error instanceof KeyCustodyError ? /^(PKCS11_[A-Z_]+): (.*)$/.exec(error.message) : null;
    if (setting) throw new ConfigError(settingNames[setting[1]] ?? setting[1], setting[2]);
    throw new ConfigError('PKCS11_LIBRARY', error instanceof Error ? error.message : String(error));
  }
}
