import { chmodSync, existsSync, writeFileSync } from 'node:fs';

/**
 * Writes a key, certificate or PKCS#12 file readable by its owner only (0600), like `step` and
 * `openssl genpkey` do. Refuses to replace an existing file unless `force`; a replaced file is
 * narrowed to 0600 as well (the mode of open(2) applies only to a new file).
 */
export function writeOwnerOnly(path: string, content: string | Uint8Array, force: boolean): void {
  writeFileSync(path, content, { mode: 0o600, flag: force ? 'w' : 'wx' });
  chmodSync(path, 0o600);
}

/**
 * Refuses, before anything is asked of the server, files that exist (unless `force`): a private
 * key is returned once, so it must not be issued only to fail on its way to disk.
 */
export function assertFree(paths: (string | undefined)[], force: boolean): void {
  if (force) return;
  const taken = paths.find((path) => path !== undefined && existsSync(path));
  if (taken) throw new FileExistsError(taken);
}

export class FileExistsError extends Error {
  constructor(readonly path: string) {
    super(`${path} exists; pass --force to replace it`);
  }
}
