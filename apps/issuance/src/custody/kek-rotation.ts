import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CaManagerConfig } from '@ca/config';
import {
  KeyCustody,
  LocalKeyCustody,
  beginKekFileRotation,
  loadOrCreateLocalKek,
  readPreviousLocalKek,
  removePreviousLocalKek,
} from '@ca/custody';
import { IssuanceDatabase } from '../issuance-database.store';
import { RewrapResult, rewrapCaKeys } from './rewrap-ca-keys';

/** Where the new KEK comes from: `--new-kek-file`, else CA_KEK_NEW, else (KEK file only) generated. */
export interface NewKekSource {
  newKekFile?: string;
  newKekBase64?: string;
}

export interface KekRotationOutcome extends RewrapResult {
  /** Embedded mode's KEK file was replaced (no new CA_KEK to hand out). */
  kekFileReplaced: boolean;
}

/** Bad input of the operator: one line, exit code 2. */
export class KekRotationUsageError extends Error {}

/**
 * `npm run ops -- custody rotate-kek` on the issuance side: re-wraps every CA key under a new KEK
 * in one transaction (`rewrapCaKeys`), then makes `custody` use it. In embedded mode with the KEK
 * in DATA_DIR/keys/ca-kek and no new KEK given, a new one is generated and written there, the old
 * one kept in ca-kek.previous until the transaction has committed.
 */
export async function rotateKek(
  config: CaManagerConfig,
  database: IssuanceDatabase,
  custody: KeyCustody,
  source: NewKekSource,
): Promise<KekRotationOutcome> {
  if (!(custody instanceof LocalKeyCustody)) {
    throw new KekRotationUsageError(
      'KEY_CUSTODY=pkcs11 keeps the CA keys in the token, under no KEK of ours: there is nothing to rotate',
    );
  }
  const kekFileManaged = config.embedded && config.caKek === undefined;
  const given = readNewKek(source);
  if (!given && !kekFileManaged) {
    throw new KekRotationUsageError(
      'CA_KEK is set by the deployment: give the new KEK with --new-kek-file FILE or CA_KEK_NEW (base64 of 32 bytes)',
    );
  }
  const newKek = given ?? new Uint8Array(randomBytes(32));
  const to = new LocalKeyCustody(newKek);
  if (!kekFileManaged) {
    const result = await rewrapCaKeys(database, custody, to);
    custody.useKek(newKek);
    return { ...result, kekFileReplaced: false };
  }
  const files = beginKekFileRotation(config.dataDir, newKek);
  let result: RewrapResult;
  try {
    result = await rewrapCaKeys(database, custody, to);
  } catch (error) {
    files.rollback();
    throw error;
  }
  custody.useKek(newKek);
  files.commit();
  return { ...result, kekFileReplaced: true };
}

/**
 * At start, embedded mode: a `ca-kek.previous` left by a rotation that was interrupted (a crash
 * between writing the new KEK and committing). The custody opened with both KEKs; this moves any
 * key still under the previous one to the current one, then drops the backup.
 */
export async function finishInterruptedKekRotation(
  config: CaManagerConfig,
  database: IssuanceDatabase,
  custody: KeyCustody,
): Promise<RewrapResult | undefined> {
  if (!(custody instanceof LocalKeyCustody) || !config.embedded || config.caKek !== undefined)
    return undefined;
  const previous = readPreviousLocalKek(config.dataDir);
  if (!previous) return undefined;
  const current = loadOrCreateLocalKek({ dataDir: config.dataDir, embedded: true });
  const result = await rewrapCaKeys(database, new LocalKeyCustody(previous), new LocalKeyCustody(current));
  custody.useKek(current);
  removePreviousLocalKek(config.dataDir);
  return result;
}

function readNewKek(source: NewKekSource): Uint8Array | undefined {
  let text: string | undefined;
  let from = 'CA_KEK_NEW';
  if (source.newKekFile !== undefined) {
    from = source.newKekFile;
    try {
      text = readFileSync(source.newKekFile, 'utf8');
    } catch (error) {
      throw new KekRotationUsageError(
        `cannot read --new-kek-file ${source.newKekFile}: ${(error as NodeJS.ErrnoException).code}`,
      );
    }
  } else text = source.newKekBase64;
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  const kek = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || kek.length !== 32) {
    throw new KekRotationUsageError(`the new KEK in ${from} must be base64 of 32 bytes`);
  }
  return new Uint8Array(kek);
}
