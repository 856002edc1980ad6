/**
 * step-ca (Smallstep's CA) as a benchmark peer: a root and an intermediate made by openssl (P-256),
 * an ACME provisioner, a badger database, TLS on a free loopback port. The binary comes from
 * STEP_CA_BIN or PATH (the repository does not build it; docs/benchmarks.md says how to get one).
 */
import { homedir } from 'node:os';
import { existsSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent, get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { freePort } from './http-load';
import { OPENSSL_CNF } from './openssl-ca';
import { mustRun, onCleanup, onPath, spawnGroup, stopGroup, tempDir } from './proc';

export interface RunningStepCa {
  directoryUrl: string;
  /** step-ca's own process (its CPU is the peer's CPU per certificate). */
  pid: number;
  /** Trusts step-ca's root (step-ca answers over TLS only). */
  agent: (maxSockets: number) => HttpsAgent;
  version: string;
  stop(): Promise<void>;
}

/**
 * The step-ca binary: STEP_CA_BIN, else `step-ca` on PATH, else the default output of the project's
 * step-ca build script (`$XDG_CACHE_HOME/step-ca/step-ca`); undefined when none.
 */
export async function stepCaBinary(): Promise<string | undefined> {
  const fromEnv = process.env.STEP_CA_BIN;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`STEP_CA_BIN=${fromEnv}: no such file`);
    return fromEnv;
  }
  if (await onPath('step-ca')) return 'step-ca';
  const built = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'step-ca', 'step-ca');
  return existsSync(built) ? built : undefined;
}

/** Starts step-ca; `resolver` (`ip:port`) is the DNS server its http-01 validation asks. */
export async function startStepCa(binary: string, resolver: string): Promise<RunningStepCa> {
  const dir = tempDir('step-ca');
  writeFileSync(
    join(dir, 'openssl.cnf'),
    `${OPENSSL_CNF}\n[ v3_intermediate ]\nbasicConstraints = critical, CA:TRUE, pathlen:0\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always\n`,
  );
  const openssl = (...args: string[]) => mustRun('openssl', args, { cwd: dir });
  await openssl(
    'req',
    '-x509',
    '-config',
    'openssl.cnf',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'root.key',
    '-out',
    'root.crt',
    '-days',
    '3650',
    '-subj',
    '/CN=Bench step-ca Root',
  );
  await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'intermediate.key');
  await openssl(
    'req',
    '-new',
    '-key',
    'intermediate.key',
    '-subj',
    '/CN=Bench step-ca Intermediate',
    '-out',
    'intermediate.csr',
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    'intermediate.csr',
    '-CA',
    'root.crt',
    '-CAkey',
    'root.key',
    '-set_serial',
    '2',
    '-days',
    '3650',
    '-extfile',
    'openssl.cnf',
    '-extensions',
    'v3_intermediate',
    '-out',
    'intermediate.crt',
  );
  const version = (
    await mustRun(binary, ['version'], { cwd: dir }).catch(() => ({ stdout: 'step-ca' }))
  ).stdout
    .trim()
    .split('\n')[0];
  const { port, child, stop } = await launchStepCa(binary, dir, {
    root: 'root.crt',
    crt: 'intermediate.crt',
    key: 'intermediate.key',
    provisioners: [
      {
        type: 'ACME',
        name: 'acme',
        claims: { defaultTLSCertDuration: '2160h', maxTLSCertDuration: '2160h' },
      },
    ],
    cipherSuites: [
      'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
      'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
    ],
    args: ['--resolver', resolver],
  });
  const rootPem = await mustRun('cat', ['root.crt'], { cwd: dir }).then((r) => r.stdout);
  const agent = (maxSockets: number) => new HttpsAgent({ keepAlive: true, maxSockets, ca: rootPem });
  const probe = agent(1);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      httpsGet(`https://127.0.0.1:${port}/health`, { agent: probe }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      }).on('error', () => resolve(false));
    });
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`step-ca exited (${child.exitCode}) before it was ready`);
    if (Date.now() > deadline) throw new Error('step-ca did not answer /health within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  probe.destroy();
  return {
    directoryUrl: `https://127.0.0.1:${port}/acme/acme/directory`,
    pid: child.pid!,
    agent,
    version,
    stop,
  };
}

/** What a step-ca configuration varies by (files relative to its directory). */
export interface StepCaSetup {
  root: string;
  /** The certificate that signs (root or intermediate) and its key (SEC1 or PKCS#8 PEM). */
  crt: string;
  key: string;
  provisioners: object[];
  cipherSuites?: string[];
  args?: string[];
}

/**
 * Writes `ca.json` in `dir` (TLS on a free loopback port, a badger database) and starts step-ca
 * on it, stopped at the benchmark's end.
 */
export async function launchStepCa(
  binary: string,
  dir: string,
  setup: StepCaSetup,
): Promise<{ port: number; child: ReturnType<typeof spawnGroup>; stop: () => Promise<void> }> {
  const port = await freePort();
  const config = {
    root: join(dir, setup.root),
    crt: join(dir, setup.crt),
    key: join(dir, setup.key),
    address: `127.0.0.1:${port}`,
    dnsNames: ['127.0.0.1', 'localhost'],
    logger: { format: 'text' },
    db: { type: 'badgerv2', dataSource: join(dir, 'db') },
    authority: { provisioners: setup.provisioners },
    tls: {
      ...(setup.cipherSuites ? { cipherSuites: setup.cipherSuites } : {}),
      minVersion: 1.2,
      maxVersion: 1.3,
      renegotiation: false,
    },
  };
  writeFileSync(join(dir, 'ca.json'), JSON.stringify(config, null, 2));
  const child = spawnGroup(binary, [join(dir, 'ca.json'), ...(setup.args ?? [])], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const stop = () => stopGroup(child, 5_000);
  onCleanup(stop);
  return { port, child, stop };
}
