import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { syncDirectory } from './local-kek';

const KEK_FILE = join('keys', 'ca-kek');
/** The KEK before a rotation, kept until the re-wrapped keys are committed. */
const PREVIOUS_KEK_FILE = join('keys', 'ca-kek.previous');

/** In embedded mode: the KEK left by a rotation that did not finish, which may still open keys. */
export function readPreviousLocalKek(dataDir: string): Uint8Array | undefined {
  const file = join(dataDir, PREVIOUS_KEK_FILE);
  if (!existsSync(file)) return undefined;
  const kek = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (kek.length !== 32) throw new Error(`${file} must hold base64 of 32 bytes (a CA_KEK)`);
  return new Uint8Array(kek);
}

/** Drops the backup once no stored key needs it. */
export function removePreviousLocalKek(dataDir: string): void {
  rmSync(join(dataDir, PREVIOUS_KEK_FILE), { force: true });
  syncDirectory(join(dataDir, 'keys'));
}

export interface KekFileRotation {
  /** The keys are committed under the new KEK: the backup goes. */
  commit(): void;
  /** The keys stayed under the old KEK: it goes back into place. */
  rollback(): void;
}

/**
 * Step one of rotating the KEK file of embedded mode (<DATA_DIR>/keys/ca-kek): the current KEK is
 * copied to `ca-kek.previous`, then the new one replaces `ca-kek` by an atomic rename. Whatever
 * happens next, one of the two files opens every key, and the custody opens with both until
 * `commit` (see `readPreviousLocalKek`), so a crash in the middle loses nothing.
 */
export function beginKekFileRotation(dataDir: string, newKek: Uint8Array): KekFileRotation {
  const file = join(dataDir, KEK_FILE);
  const previous = join(dataDir, PREVIOUS_KEK_FILE);
  if (existsSync(previous)) {
    // Issuance finishes an interrupted rotation when it starts (finishInterruptedKekRotation).
    throw new Error(
      `${previous} exists: an earlier rotation did not finish; restart the system, which finishes it`,
    );
  }
  writePrivateFileAtomically(previous, readFileSync(file, 'utf8'));
  writePrivateFileAtomically(file, `${Buffer.from(newKek).toString('base64')}\n`);
  return {
    commit: () => removePreviousLocalKek(dataDir),
    rollback: () => {
      renameSync(previous, file);
      syncDirectory(dirname(file));
    },
  };
}

/** Mode 0600 from the start, synced, then renamed into place (atomic on POSIX file systems). */
function writePrivateFileAtomically(file: string, content: string): void {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  syncDirectory(dirname(file));
}
