import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { runProgram, stopChild } from './programs';

export interface CaddySite {
  /** The site's name; its body is `served by caddy`. */
  name: string;
  directoryUrl: string;
  caPem: string;
  eab: { keyId: string; hmacKey: string };
  httpPort: number;
  httpsPort: number;
}

/**
 * The Caddyfile of docs/operations.md (cert-manager / certbot / Caddy) for one site, on loopback
 * test ports, with its admin endpoint off and its storage under `base`.
 */
export function caddyfileFor(site: CaddySite, base: string): string {
  return [
    '{',
    '\tadmin off',
    '\tdefault_bind 127.0.0.1',
    `\thttp_port ${site.httpPort}`,
    `\thttps_port ${site.httpsPort}`,
    `\tstorage file_system {\n\t\troot ${join(base, 'storage')}\n\t}`,
    `\tacme_ca ${site.directoryUrl}`,
    `\tacme_ca_root ${join(base, 'ca.pem')}`,
    `\tacme_eab {\n\t\tkey_id ${site.eab.keyId}\n\t\tmac_key ${site.eab.hmacKey}\n\t}`,
    '\temail ops@example.test',
    '\trenew_interval 2s',
    '}',
    `${site.name} {`,
    '\trespond "served by caddy"',
    '}',
    '',
  ].join('\n');
}

/** A running Caddy; `log` is what it wrote so far. */
export interface RunningCaddy {
  readonly log: () => string;
  stop(): Promise<void>;
}

/**
 * Starts Caddy on the site's Caddyfile, adapted to JSON to add what the Caddyfile of Caddy 2.6
 * cannot say: with `renewDue`, a renewal window of the whole lifetime (`renewal_window_ratio` 1),
 * so each `renew_interval` finds the certificate due and renews it.
 */
export async function startCaddy(site: CaddySite, base: string, renewDue: boolean): Promise<RunningCaddy> {
  mkdirSync(base, { recursive: true });
  writeFileSync(join(base, 'ca.pem'), site.caPem);
  writeFileSync(join(base, 'Caddyfile'), caddyfileFor(site, base));
  const env = { ...process.env, HOME: base, XDG_CONFIG_HOME: base, XDG_DATA_HOME: base };
  const adapted = await runProgram('caddy', ['adapt', '--config', join(base, 'Caddyfile')], { env });
  if (adapted.status !== 0) throw new Error(`caddy adapt failed: ${adapted.stderr}`);
  const config = JSON.parse(adapted.stdout) as {
    apps: { tls: { automation: { policies: Record<string, unknown>[] } } };
  };
  if (renewDue) for (const policy of config.apps.tls.automation.policies) policy.renewal_window_ratio = 1;
  writeFileSync(join(base, 'caddy.json'), JSON.stringify(config));
  let log = '';
  const child: ChildProcess = spawn('caddy', ['run', '--config', join(base, 'caddy.json')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  return { log: () => log, stop: () => stopChild(child) };
}

/**
 * GET https://name:port/ at 127.0.0.1 trusting only `caPem` (as `curl --cacert --resolve` would):
 * the body and the serial (hex) of the certificate served; undefined while the handshake fails.
 */
export function servedBy(
  site: Pick<CaddySite, 'name' | 'httpsPort' | 'caPem'>,
): Promise<{ body: string; serial: string } | undefined> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: site.httpsPort,
        servername: site.name,
        ca: site.caPem,
        headers: { host: site.name },
        agent: false,
      },
      (res) => {
        const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ body, serial }));
      },
    );
    req.on('error', () => resolve(undefined));
    req.end();
  });
}
