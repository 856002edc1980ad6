import { webcrypto } from 'node:crypto';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { ChildProgram, waitFor } from './child-process';

/**
 * A service as `nx serve` runs it (`node -r @swc-node/register apps/<app>/src/main.ts`) from
 * `appRoot`, named `name` (a second replica has a name of its own), its output in `<logDir>/<name>.log`.
 */
export function serviceProgram(
  name: string,
  service: string,
  options: { appRoot: string; env: NodeJS.ProcessEnv; logDir: string },
): ChildProgram {
  return new ChildProgram(
    name,
    process.execPath,
    ['-r', '@swc-node/register', `apps/${service}/src/main.ts`],
    {
      cwd: options.appRoot,
      env: options.env,
      logFile: join(options.logDir, `${name}.log`),
    },
  );
}

/** Starts `program` and waits until `healthUrl` answers 200; an exit or time-out names its log. */
export async function startUntilReady(
  program: ChildProgram,
  healthUrl: string,
  logDir: string,
  timeoutMs: number,
): Promise<void> {
  program.start();
  let exited = false;
  const log = join(logDir, `${program.name}.log`);
  // What the probe was last told (a 503's body says what the service waits for), for a time-out.
  let lastAnswer = 'no answer';
  await waitFor(
    async () => {
      exited = !program.running;
      if (exited) return true;
      const response = await fetch(healthUrl).catch((error: Error) => {
        lastAnswer = `${error.message}: ${String((error.cause as Error | undefined)?.message ?? '')}`;
        throw error;
      });
      lastAnswer = `${response.status} ${await response.text()}`;
      return response.status === 200;
    },
    timeoutMs,
    `${program.name} ready`,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; /health/ready last answered ${lastAnswer} (log: ${log})`);
  });
  if (exited) throw new Error(`${program.name} exited at start (log: ${log})`);
}

/** An ES256 admin token of the tenant with every scope, as the suite `subject`. */
export function adminToken(
  signingKey: webcrypto.CryptoKey,
  tenantId: string,
  subject: string,
): Promise<string> {
  return new SignJWT({ tenantId, scope: 'ca:admin certificates:read certificates:write' })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(signingKey);
}
