import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pkcs11TokenOptions } from '../pkcs11/pkcs11-token';

/** Where Debian's `softhsm2` package (and common builds) put the module; SOFTHSM2_LIBRARY overrides. */
const LIBRARY_CANDIDATES = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/local/lib/softhsm/libsofthsm2.so',
];

let library: string | null | undefined;

/** SoftHSM2's PKCS#11 module, when it and `softhsm2-util` are installed. */
export function softHsmLibrary(): string | undefined {
  if (library === undefined) {
    const candidates = [process.env.SOFTHSM2_LIBRARY, ...LIBRARY_CANDIDATES].filter((c): c is string => !!c);
    const found = candidates.find((candidate) => existsSync(candidate));
    const util = spawnSync('softhsm2-util', ['--version'], { stdio: 'ignore' }).status === 0;
    library = found && util ? found : null;
  }
  return library ?? undefined;
}

/** `describe` when SoftHSM2 is installed, else `describe.skip` with a visible warning. */
export function describeIfSoftHsm(name: string, suite: () => void): void {
  if (softHsmLibrary()) return describe(name, suite);
  console.warn(`Skipping "${name}": SoftHSM2 is not installed (apt-get install softhsm2 to run these tests)`);
  describe.skip(name, suite);
}

export interface SoftHsmToken extends Pkcs11TokenOptions {
  /** Environment a child process needs to see the token (SOFTHSM2_CONF). */
  env: { SOFTHSM2_CONF: string };
  /** SoftHSM's token directory (SOFTHSM2_CONF's `directories.tokendir`). */
  tokenDir: string;
  /** Deletes the token (and the directory, when it was made for this token). */
  remove(): void;
}

/**
 * A fresh token in a temporary directory: a SoftHSM2 configuration pointing there, exported as
 * SOFTHSM2_CONF into this process (SoftHSM reads it when the module is initialized, so call this
 * before the first custody of the process opens), then `softhsm2-util --init-token --free`.
 * With `besides`, a second token in the same directory, so that one module shows both (as an HSM
 * shows its partitions); create it before the module is initialized too.
 */
export function createSoftHsmToken(
  tokenLabel = 'ca-manager-test',
  options: { besides?: SoftHsmToken } = {},
): SoftHsmToken {
  const module = softHsmLibrary();
  if (!module) throw new Error('SoftHSM2 is not installed');
  const { besides } = options;
  let dir: string | undefined;
  let conf: string;
  let confDir: string | undefined;
  let tokenDir: string;
  if (besides) {
    conf = besides.env.SOFTHSM2_CONF;
    tokenDir = besides.tokenDir;
  } else {
    dir = mkdtempSync(join(tmpdir(), 'softhsm-'));
    tokenDir = join(dir, 'tokens');
    mkdirSync(tokenDir, { mode: 0o700 });
    // One configuration file per process, rewritten for each new token: SoftHSM reads it at every
    // C_Initialize, while the variable naming it can be set only once (see exportToNativeEnvironment).
    confDir = join(tmpdir(), `softhsm-conf-${process.pid}`);
    mkdirSync(confDir, { recursive: true, mode: 0o700 });
    conf = join(confDir, 'softhsm2.conf');
    writeFileSync(
      conf,
      `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\n`,
    );
    exportToNativeEnvironment(confDir, 'SOFTHSM2_CONF', conf);
  }
  const before = new Set(readdirSync(tokenDir));
  const pin = randomBytes(6).toString('hex');
  const init = spawnSync(
    'softhsm2-util',
    [
      '--init-token',
      '--free',
      '--label',
      tokenLabel,
      '--pin',
      pin,
      '--so-pin',
      randomBytes(6).toString('hex'),
    ],
    { encoding: 'utf8', env: { ...process.env, SOFTHSM2_CONF: conf } },
  );
  if (init.status !== 0) throw new Error(`softhsm2-util --init-token failed: ${init.stderr || init.stdout}`);
  // SoftHSM keeps each token in a sub-directory of its own.
  const own = readdirSync(tokenDir).filter((entry) => !before.has(entry));
  return {
    library: module,
    tokenLabel,
    pin,
    env: { SOFTHSM2_CONF: conf },
    tokenDir,
    remove: () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (confDir) rmSync(confDir, { recursive: true, force: true });
      for (const entry of own) rmSync(join(tokenDir, entry), { recursive: true, force: true });
    },
  };
}

/**
 * Sets a variable in the process's real environment, where the native module's getenv() reads it.
 * Jest hands each test file a copy of `process.env`; `process.loadEnvFile` writes to the real one
 * (but never overrides a variable already set, hence the one path per process).
 */
function exportToNativeEnvironment(dir: string, name: string, value: string): void {
  const file = join(dir, 'env');
  writeFileSync(file, `${name}=${value}\n`, { mode: 0o600 });
  process.loadEnvFile(file);
  process.env[name] = value;
}
