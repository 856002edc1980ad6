import { accessSync, constants, readFileSync } from 'node:fs';
import { nkeys } from 'nats';
import { ConfigError } from './config-error';
import { Env, readString } from './env-readers';

/** How one service identifies itself to NATS (see docs/security.md, "The bus"). */
export interface NatsClientSettings {
  /** The service's own NATS user, set only when its password variable is (and no key is). */
  user?: string;
  pass?: string;
  /**
   * The service's NKey seed (`SU…`), set when `NATS_NKEY_SEED_<APP>` or `NATS_NKEY_SEED_FILE_<APP>`
   * is: the service proves it holds the key by signing the server's challenge; the seed is never
   * sent. It takes the place of the password.
   */
  nkeySeed?: string;
  /**
   * `_INBOX.<app>`: replies to this service arrive under a prefix that only its user may
   * subscribe to, so no other client can read them.
   */
  inboxPrefix: string;
  /** PEM file of the CA that signed the NATS server's certificate (a `tls://` NATS_URL). */
  tlsCaFile?: string;
}

const APP_NAME = /^[a-z][a-z0-9-]*$/;

/** `NATS_PASSWORD_<APP>`: upper case, `-` as `_` (ocsp-responder → NATS_PASSWORD_OCSP_RESPONDER). */
export function natsPasswordVariable(app: string): string {
  if (!APP_NAME.test(app)) throw new Error(`invalid app name for NATS: ${app}`);
  return `NATS_PASSWORD_${app.toUpperCase().replace(/-/g, '_')}`;
}

/** `NATS_NKEY_SEED_<APP>` and `NATS_NKEY_SEED_FILE_<APP>`: the service's NKey seed, or a file holding it. */
export function natsNkeySeedVariables(app: string): { seed: string; file: string } {
  const suffix = natsPasswordVariable(app).slice('NATS_PASSWORD_'.length);
  return { seed: `NATS_NKEY_SEED_${suffix}`, file: `NATS_NKEY_SEED_FILE_${suffix}` };
}

/** `NATS_NKEY_<APP>`: the public key (`U…`) the server configuration admits for that app. */
export function natsNkeyPublicVariable(app: string): string {
  return `NATS_NKEY_${natsPasswordVariable(app).slice('NATS_PASSWORD_'.length)}`;
}

/** The app's NKey seed from its variable or file; checked to be a user seed, named when it is not. */
function readNkeySeed(app: string, env: Env): string | undefined {
  const names = natsNkeySeedVariables(app);
  const inline = readString(env, names.seed);
  const file = readString(env, names.file);
  if (inline && file)
    throw new ConfigError(names.seed, `set either ${names.seed} or ${names.file}, not both`);
  let seed = inline;
  let name = names.seed;
  if (file) {
    name = names.file;
    try {
      seed = readFileSync(file, 'utf8').trim();
    } catch {
      throw new ConfigError(names.file, `cannot read ${file}`);
    }
  }
  if (seed === undefined) return undefined;
  let valid = false;
  try {
    // A user seed starts "SU"; fromSeed checks its encoding and checksum. The seed is never echoed.
    valid =
      seed.startsWith('SU') && nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey().startsWith('U');
  } catch {
    valid = false;
  }
  if (!valid)
    throw new ConfigError(name, 'is not an NKey user seed (SU…; npm run ops -- nats-keys makes them)');
  return seed;
}

/**
 * The NATS identity of `app`: its NKey when `NATS_NKEY_SEED_<APP>` (or `_FILE_`) is set, else its
 * own user when `NATS_PASSWORD_<APP>` is set, otherwise whatever NATS_URL says (credentials in the
 * URL, or none on a development bus).
 */
export function loadNatsClientSettings(app: string, env: Env = process.env): NatsClientSettings {
  const nkeySeed = readNkeySeed(app, env);
  const pass = nkeySeed ? undefined : readString(env, natsPasswordVariable(app));
  const tlsCaFile = readString(env, 'NATS_TLS_CA_FILE');
  if (tlsCaFile) {
    try {
      accessSync(tlsCaFile, constants.R_OK);
    } catch {
      throw new ConfigError('NATS_TLS_CA_FILE', `cannot read ${tlsCaFile}`);
    }
  }
  return {
    ...(nkeySeed ? { nkeySeed } : {}),
    ...(pass ? { user: app, pass } : {}),
    inboxPrefix: `_INBOX.${app}`,
    ...(tlsCaFile ? { tlsCaFile } : {}),
  };
}

/** The services that sign in to NATS as users of their own (deploy/nats/permissions.conf). */
export const NATS_SERVICE_USERS = ['gateway', 'issuance', 'revocation', 'ocsp-responder', 'acme', 'webhooks'];

export interface NatsServiceKey {
  app: string;
  /** `U…`: for the server's `NATS_NKEY_<APP>`. */
  publicKey: string;
  /** `SU…`: for the service's `NATS_NKEY_SEED_<APP>` (or the file of `NATS_NKEY_SEED_FILE_<APP>`) only. */
  seed: string;
}

/** A fresh NKey user key pair per service (`npm run ops -- nats-keys`). */
export function makeNatsServiceKeys(apps: readonly string[] = NATS_SERVICE_USERS): NatsServiceKey[] {
  return apps.map((app) => {
    const pair = nkeys.createUser();
    const key = { app, publicKey: pair.getPublicKey(), seed: new TextDecoder().decode(pair.getSeed()) };
    pair.clear();
    return key;
  });
}
