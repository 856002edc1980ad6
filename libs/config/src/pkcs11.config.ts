import { ConfigError } from './config-error';
import { Env, readString } from './env-readers';

/** A token reached through PKCS11_LIBRARY: its label and user PIN. */
export interface Pkcs11TokenSettings {
  tokenLabel: string;
  pin: string;
}

/** PKCS11_* (docs/operations.md#key-custody); all unset with KEY_CUSTODY=local. */
export interface Pkcs11Settings {
  library?: string;
  tokenLabel?: string;
  pin?: string;
  /**
   * PKCS11_ROOT_TOKEN_LABEL and PKCS11_ROOT_PIN: the token that holds the root CA keys, apart
   * from the issuing CA keys in PKCS11_TOKEN_LABEL. Unset: every CA key is in the one token.
   */
  root?: Pkcs11TokenSettings;
}

export function readPkcs11Settings(env: Env, keyCustody: 'local' | 'pkcs11'): Pkcs11Settings {
  const settings: Pkcs11Settings = {
    library: readString(env, 'PKCS11_LIBRARY'),
    tokenLabel: readString(env, 'PKCS11_TOKEN_LABEL'),
    pin: readString(env, 'PKCS11_PIN'),
  };
  const rootTokenLabel = readString(env, 'PKCS11_ROOT_TOKEN_LABEL');
  const rootPin = readString(env, 'PKCS11_ROOT_PIN');
  if (keyCustody === 'pkcs11') {
    // All three are needed to reach the token; name the first one missing (docs/api.md#configuration).
    for (const [name, value] of [
      ['PKCS11_LIBRARY', settings.library],
      ['PKCS11_TOKEN_LABEL', settings.tokenLabel],
      ['PKCS11_PIN', settings.pin],
    ] as const) {
      if (!value) throw new ConfigError(name, 'is required when KEY_CUSTODY=pkcs11');
    }
  } else {
    // Local custody has no token: a root token setting there is a mistake, not a no-op.
    const stray = rootTokenLabel ? 'PKCS11_ROOT_TOKEN_LABEL' : rootPin ? 'PKCS11_ROOT_PIN' : undefined;
    if (stray) throw new ConfigError(stray, 'is only used with KEY_CUSTODY=pkcs11');
    return settings;
  }
  if (!rootTokenLabel && !rootPin) return settings;
  if (!rootTokenLabel) {
    throw new ConfigError(
      'PKCS11_ROOT_TOKEN_LABEL',
      'is required with PKCS11_ROOT_PIN (set both or neither)',
    );
  }
  if (!rootPin) {
    throw new ConfigError(
      'PKCS11_ROOT_PIN',
      'is required with PKCS11_ROOT_TOKEN_LABEL (set both or neither)',
    );
  }
  if (rootTokenLabel === settings.tokenLabel) {
    throw new ConfigError(
      'PKCS11_ROOT_TOKEN_LABEL',
      'names the token of PKCS11_TOKEN_LABEL; give the root keys a token of their own, or unset both root settings',
    );
  }
  return { ...settings, root: { tokenLabel: rootTokenLabel, pin: rootPin } };
}
