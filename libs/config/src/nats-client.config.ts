import { accessSync, constants } from 'node:fs';
import { ConfigError } from './config-error';
import { Env, readString } from './env-readers';

/** How one service identifies itself to NATS (see docs/security.md, "The bus"). */
export interface NatsClientSettings {
  /** The service's own NATS user, set only when its password variable is. */
  user?: string;
  pass?: string;
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

/**
 * The NATS identity of `app`: its own user when `NATS_PASSWORD_<APP>` is set, otherwise whatever
 * NATS_URL says (credentials in the URL, or none on a development bus).
 */
export function loadNatsClientSettings(app: string, env: Env = process.env): NatsClientSettings {
  const pass = readString(env, natsPasswordVariable(app));
  const tlsCaFile = readString(env, 'NATS_TLS_CA_FILE');
  if (tlsCaFile) {
    try {
      accessSync(tlsCaFile, constants.R_OK);
    } catch {
      throw new ConfigError('NATS_TLS_CA_FILE', `cannot read ${tlsCaFile}`);
    }
  }
  return {
    ...(pass ? { user: app, pass } : {}),
    inboxPrefix: `_INBOX.${app}`,
    ...(tlsCaFile ? { tlsCaFile } : {}),
  };
}
