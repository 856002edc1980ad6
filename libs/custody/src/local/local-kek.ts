import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

const KEK_OCTETS = 32;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface LocalKekOptions {
  /** The CA_KEK setting; `undefined` means unset (an empty string is malformed, not unset). */
  kekBase64?: string;
  /** DATA_DIR; the generated KEK is kept in `<dataDir>/keys/ca-kek`. */
  dataDir?: string;
  /** Embedded mode (no DATABASE_URL): a KEK may be generated and kept beside the data. */
  embedded: boolean;
}

/**
 * The key-encryption key of `KEY_CUSTODY=local` (docs/api.md#configuration, CA_KEK): the configured one;
 * else, in embedded mode only, the one kept in DATA_DIR, created on first start. A distributed
 * deployment must be given one, since a key file on one machine's disk would not be shared.
 */
export function loadOrCreateLocalKek(options: LocalKekOptions): Uint8Array {
  if (options.kekBase64 !== undefined) {
    const kek = decodeKek(options.kekBase64);
    if (!kek) throw new Error('CA_KEK must be base64 of 32 bytes');
    return kek;
  }
  if (!options.embedded) throw new Error('CA_KEK is required when DATABASE_URL is set');
  if (!options.dataDir) throw new Error('DATA_DIR is required to keep the generated CA_KEK');
  const file = join(options.dataDir, 'keys', 'ca-kek');
  return existsSync(file) ? readKekFile(file) : createKekFile(file);
}

function decodeKek(base64: string): Uint8Array | undefined {
  const trimmed = base64.trim();
  if (!BASE64.test(trimmed)) return undefined;
  const kek = Buffer.from(trimmed, 'base64');
  return kek.length === KEK_OCTETS ? new Uint8Array(kek) : undefined;
}

function readKekFile(file: string): Uint8Array {
  const kek = decodeKek(readFileSync(file, 'utf8'));
  if (!kek) throw new Error(`${file} must hold base64 of 32 bytes (the CA_KEK)`);
  return kek;
}

/**
 * Writes a new random KEK to a private temporary file, then links it into place. A link, unlike
 * a rename, never replaces an existing file: if another process created the KEK meanwhile, its
 * KEK wins and is used, so two processes can never wrap keys under two different KEKs.
 */
function createKekFile(file: string): Uint8Array {
  const dir = dirname(file);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // whatever the umask
  }
  const kek = new Uint8Array(randomBytes(KEK_OCTETS));
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${Buffer.from(kek).toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readKekFile(file);
  } finally {
    unlinkSync(temporary);
  }
  syncDirectory(dir);
  return kek;
}

/** Makes a new directory entry durable: a KEK lost in a crash would lose every key it wrapped. */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not every platform can fsync a directory (Windows); the file itself was synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
