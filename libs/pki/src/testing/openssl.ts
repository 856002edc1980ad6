import { spawnSync } from 'node:child_process';
import { pemToDer } from '../pem';

let available: boolean | undefined;

/** Whether the `openssl` CLI can be run; checked once per process. */
export function hasOpenssl(): boolean {
  available ??= spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
  return available;
}

/**
 * `describe` when the `openssl` CLI is installed, else `describe.skip` with a visible warning
 * (docs/api.md#running-the-system: tests that need a system program say so and skip where it is absent).
 */
export function describeIfOpenssl(name: string, suite: () => void): void {
  if (hasOpenssl()) return describe(name, suite);
  console.warn(`Skipping "${name}": the openssl program is not installed (install it to run these tests)`);
  describe.skip(name, suite);
}

/** Runs `openssl` with arguments and optional stdin; throws with its stderr if it fails. */
export function runOpenssl(args: readonly string[], input?: string | Uint8Array): string {
  const result = spawnOpenssl(args, input);
  if (result.status !== 0) {
    throw new Error(`openssl ${args.join(' ')} exited with ${result.status}: ${result.stderr}`);
  }
  return result.stdout;
}

/**
 * Runs `openssl` and returns its exit status with stdout and stderr, whatever the status: some
 * commands report on stderr (`openssl ocsp` prints "Response verify OK" there) or fail on purpose.
 */
export function spawnOpenssl(
  args: readonly string[],
  input?: string | Uint8Array,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('openssl', args, { input, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `openssl req -newkey` arguments for a fresh P-256 key. */
export const OPENSSL_NEW_P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] as const;

/**
 * A PKCS#10 request made by `openssl req -new` with a fresh key (`newkey`: the -newkey arguments),
 * the subject and any further arguments (-addext, -config, -utf8, -sha1…), as DER.
 */
export function opensslCsr(
  newkey: readonly string[] = OPENSSL_NEW_P256_KEY,
  subject = '/CN=cli',
  extra: readonly string[] = [],
): Uint8Array {
  return pemToDer(
    runOpenssl(['req', '-new', ...newkey, '-nodes', '-keyout', '/dev/null', '-subj', subject, ...extra]),
  );
}
