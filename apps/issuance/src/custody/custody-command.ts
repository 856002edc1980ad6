import type { CaManagerConfig } from '@ca/config';
import { KeyCustody } from '@ca/custody';
import { OpsOutput } from '@ca/operations';
import { openSchemaDataSource } from '@ca/persistence';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { PendingCaEntity } from '../certificate-authority/pending-ca.entity';
import { IssuanceDatabase, SqlIssuanceDatabase } from '../issuance-database.store';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { KekRotationUsageError, NewKekSource, rotateKek } from './kek-rotation';
import { openIssuanceCustody } from './open-issuance-custody';

export const CUSTODY_USAGE = `usage: npm run ops -- custody rotate-kek [--new-kek-file FILE]
  Re-wraps every CA key (KEY_CUSTODY=local) under a new key-encryption key, in one transaction.
  Embedded mode with the KEK in DATA_DIR: a new KEK is generated there unless FILE is given.
  With CA_KEK set: the new KEK comes from FILE or CA_KEK_NEW (base64 of 32 bytes); then restart
  issuance with CA_KEK set to it. See docs/operations.md, "Key custody".`;

/** `custody …` arguments, checked: a usage error is thrown as `KekRotationUsageError`. */
export function parseCustodyCommand(args: readonly string[]): NewKekSource | 'help' {
  const [action, ...rest] = args;
  if (action === undefined || action === 'help' || action === '--help') return 'help';
  if (action !== 'rotate-kek')
    throw new KekRotationUsageError(`unknown custody command "${action}"; expected rotate-kek`);
  const source: NewKekSource = {};
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = rest[i].split(/=(.*)/s, 2);
    if (flag !== '--new-kek-file')
      throw new KekRotationUsageError(`unknown option "${rest[i]}" for custody rotate-kek`);
    const value = inline ?? rest[++i];
    if (!value) throw new KekRotationUsageError('--new-kek-file needs a file name');
    source.newKekFile = value;
  }
  return source;
}

/**
 * Runs `custody …` on issuance's own schema and custody: in the embedded process through its
 * operator endpoint, or from the ops tool against DATABASE_URL (`runCustodyCommandOnDatabase`).
 * Exit codes as every ops command: 0 done, 1 failed, 2 bad arguments.
 */
export async function runCustodyCommand(
  args: readonly string[],
  io: OpsOutput,
  deps: { config: CaManagerConfig; database: IssuanceDatabase; custody: KeyCustody; newKekBase64?: string },
): Promise<number> {
  try {
    const parsed = parseCustodyCommand(args);
    if (parsed === 'help') {
      await io.out(CUSTODY_USAGE);
      return 0;
    }
    if (parsed.newKekFile === undefined && deps.newKekBase64 !== undefined)
      parsed.newKekBase64 = deps.newKekBase64;
    const outcome = await rotateKek(deps.config, deps.database, deps.custody, parsed);
    await io.out(
      `custody rotate-kek: ${outcome.rewrapped} CA key(s) re-wrapped under the new KEK, ${outcome.alreadyCurrent} already were`,
    );
    await io.out(
      outcome.kekFileReplaced
        ? 'The new KEK is in DATA_DIR/keys/ca-kek (back it up now; the old one no longer opens the keys).'
        : 'Now set CA_KEK to the new KEK wherever issuance runs, and restart it.',
    );
    return 0;
  } catch (error) {
    if (error instanceof KekRotationUsageError) {
      await io.err(`ops: ${error.message}`);
      return 2;
    }
    // No key material in messages: custody errors name tenant and key ids only.
    await io.err(
      `ops: custody rotate-kek failed, nothing changed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
}

/** The ops tool's path with DATABASE_URL: issuance's schema and CA_KEK, from this process. */
export async function runCustodyCommandOnDatabase(
  config: CaManagerConfig,
  args: readonly string[],
  io: OpsOutput,
  newKekBase64: string | undefined,
): Promise<number> {
  if (!config.databaseUrl) throw new Error('runCustodyCommandOnDatabase needs DATABASE_URL');
  const custodies = await openIssuanceCustody(config);
  const dataSource = await openSchemaDataSource({
    url: config.databaseUrl,
    schema: ISSUANCE_SCHEMA,
    entities: [CertificateAuthorityEntity, PendingCaEntity],
    migrations: ISSUANCE_MIGRATIONS,
    poolSize: 2,
  });
  try {
    // Only `local` keys have a KEK, and `local` has one custody for both roles.
    return await runCustodyCommand(args, io, {
      config,
      database: new SqlIssuanceDatabase(dataSource),
      custody: custodies.main,
      newKekBase64,
    });
  } finally {
    await dataSource.destroy();
    custodies.close();
  }
}
