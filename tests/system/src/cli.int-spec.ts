import 'reflect-metadata';
import { X509Certificate, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminRequest, keyMatchesCertificate } from './support/admin-api';
import { eventually } from './support/http';
import { ProgramResult, runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest } from './support/system-under-test';

/**
 * The command-line client for people (apps/cli) as a person runs it: a child process against the
 * embedded system, with the URL and token from the environment as `npm run cli` gets them.
 * Embedded mode only: the CLI speaks HTTP and does not care how the services are wired.
 */
// Each step is a process of its own (node, swc): about 20 s on a quiet machine, 60+ on a loaded one.
jest.setTimeout(180_000);

const CLI = join(__dirname, '..', '..', '..', 'apps', 'cli', 'src', 'main.ts');
/** Absolute, so the CLI also runs from another working directory (the default file names land there). */
const SWC_REGISTER = require.resolve('@swc-node/register');

describe('npm run cli (embedded)', () => {
  let sut: SystemUnderTest;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const cli = (...args: string[]): Promise<ProgramResult> =>
    runProgram(process.execPath, ['-r', SWC_REGISTER, CLI, ...args], { env, timeoutMs: 30_000 });
  const path = (name: string) => join(dir, name);
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-cli-'));
    // A webhook receiver on loopback needs private targets allowed.
    sut = await startSystemUnderTest('embedded', { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    env = {
      ...process.env,
      CA_MANAGER_URL: sut.gatewayUrl,
      CA_MANAGER_TOKEN: await sut.tokens.sign(randomUUID(), {
        claims: { scope: 'ca:admin certificates:read certificates:write' },
      }),
    };
  });

  afterAll(async () => {
    await sut?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('walks a certificate through init, issue, list, show, renew, revoke and expiring', async () => {
    const init = await cli(
      'ca',
      'init',
      'CLI Root',
      '--org',
      'Acme',
      '--country',
      'US',
      '--years',
      '5',
      '--cert-file',
      path('ca.crt'),
    );
    expect(init).toMatchObject({ status: 0, stderr: '' });
    expect(init.stdout).toMatch(/^CA id: +[0-9a-f-]{36}$/m);
    const ca = new X509Certificate(readFileSync(path('ca.crt')));
    expect(ca.subject).toContain('CN=CLI Root');

    // For people: a summary, and the key and certificate in owner-only files named after the CN.
    const issue = await cli(
      'cert',
      'issue',
      'billing-client',
      '--org',
      'Acme',
      '--ou',
      'Payments',
      '--country',
      'US',
      '--days',
      '20',
      '--key-file',
      path('billing.key'),
      '--cert-file',
      path('billing.crt'),
    );
    expect(issue).toMatchObject({ status: 0, stderr: '' });
    const id = issue.stdout.match(/^Certificate id: +([0-9a-f-]{36})$/m)?.[1];
    expect(id).toBeDefined();
    expect(issue.stdout).toContain(`Private key:     ${path('billing.key')}`);
    expect(modeOf(path('billing.key'))).toBe(0o600);
    expect(modeOf(path('billing.crt'))).toBe(0o600);
    const leafPem = readFileSync(path('billing.crt'), 'utf8');
    expect(keyMatchesCertificate(readFileSync(path('billing.key'), 'utf8'), leafPem)).toBe(true);
    expect(new X509Certificate(leafPem).verify(ca.publicKey)).toBe(true);

    // For scripts: the API's answer as JSON; a server certificate with SANs and a PKCS#12 if served.
    const server = await cli(
      'cert',
      'issue',
      'web',
      '--org',
      'Acme',
      '--ou',
      'Edge',
      '--country',
      'US',
      '--usage',
      'Server',
      '--san',
      'web.example.com',
      '--san',
      'www.example.com',
      '--p12',
      '--p12-file',
      path('web.p12'),
      '--json',
    );
    expect(server).toMatchObject({ status: 0, stderr: '' });
    const serverAnswer = JSON.parse(server.stdout) as {
      certificateId: string;
      certificatePem: string;
      pfxBase64?: string;
    };
    expect(new X509Certificate(serverAnswer.certificatePem).subjectAltName).toBe(
      'DNS:web.example.com, DNS:www.example.com',
    );
    expect(readFileSync(path('web.p12')).equals(Buffer.from(serverAnswer.pfxBase64!, 'base64'))).toBe(true);
    expect(modeOf(path('web.p12'))).toBe(0o600);

    const [list, listJson, show] = await Promise.all([
      cli('cert', 'list'),
      cli('cert', 'list', '--json'),
      cli('cert', 'show', id!),
    ]);
    expect(list.status).toBe(0);
    const [header, ...rows] = list.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID +COMMON NAME +CLIENT +SERIAL +STATUS +EXPIRES +DAYS LEFT$/);
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.startsWith(id!))).toMatch(
      /billing-client +billing-client +[0-9A-F]+ +Active +\d{4}-\d\d-\d\d +19$/,
    );
    const listed = JSON.parse(listJson.stdout) as { certificates: unknown[] };
    expect(listed.certificates).toHaveLength(2);

    expect(show.stdout).toMatch(/^Status: +Active$/m);
    expect(show.stdout).toContain(leafPem.trimEnd());

    // Renewal for people with a PKCS#12: its password is shown once, the files default to the old id.
    const renew = await runProgram(
      process.execPath,
      ['-r', SWC_REGISTER, CLI, 'cert', 'renew', id!, '--days', '10', '--p12'],
      { env, timeoutMs: 30_000, cwd: dir },
    );
    expect(renew).toMatchObject({ status: 0, stderr: '' });
    const renewed = { newCertificateId: renew.stdout.match(/^New certificate id: +([0-9a-f-]{36})$/m)?.[1] };
    expect(renewed.newCertificateId).toBeDefined();
    expect(renewed.newCertificateId).not.toBe(id);
    expect(renew.stdout).toMatch(/^PKCS#12 password: +\S+ +\(shown once: keep it now\)$/m);
    for (const extension of ['crt', 'key', 'p12'])
      expect(modeOf(path(`renewed-${id}.${extension}`))).toBe(0o600);

    const revoke = await cli(
      'cert',
      'revoke',
      id!,
      '--reason',
      'laptop lost',
      '--reason-code',
      'KeyCompromise',
    );
    expect(revoke).toMatchObject({ status: 0, stderr: '' });
    expect(revoke.stdout).toMatch(new RegExp(`^Revoked: +${id}$`, 'm'));
    expect((await cli('cert', 'show', id!, '--json')).stdout).toContain('"status": "Revoked"');

    // Expiring lists Active certificates only, soonest first: the renewal (10 days) and the server one (90).
    const expiring = JSON.parse((await cli('cert', 'expiring', '--days', '100', '--json')).stdout) as {
      certificates: { certificateId: string }[];
    };
    expect(expiring.certificates.map((c) => c.certificateId)).toEqual([
      renewed.newCertificateId,
      serverAnswer.certificateId,
    ]);
    expect((await cli('cert', 'expiring', '--days', '5')).stdout.trim()).toBe(
      'No certificates expire within 5 days.',
    );
  });

  it('adds, lists, tests and deletes a webhook, and shows its delivery log', async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => received.push(chunk.toString()));
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const add = await cli('webhook', 'add', url, '--event', 'certificate.issued', '--expiring-days', '14');
      expect(add.status).toBe(0);
      const id = /Webhook: +([0-9a-f-]{36})/.exec(add.stdout)?.[1];
      expect(add.stdout).toMatch(/Secret: +whsec_/);
      const list = await cli('webhook', 'list');
      expect(list.stdout).toContain(`${id}  ${url}  certificate.issued  14`);
      expect(list.stdout).not.toContain('whsec_');
      expect((await cli('webhook', 'test', id!)).status).toBe(0);
      await eventually(
        async () => (received.some((b) => b.includes('webhook.test')) ? true : undefined),
        30_000,
      );
      const log = await eventually(async () => {
        const run = await cli('webhook', 'deliveries', id!);
        return / webhook\.test +1 +204 /.test(run.stdout) ? run : undefined;
      }, 60_000);
      expect(log.status).toBe(0);
      expect((await cli('webhook', 'delete', id!)).stdout).toContain(`Deleted:  ${id}`);
      expect((await cli('webhook', 'list')).stdout.trim()).toBe('No webhooks.');
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('searches with filters and --all across pages, and exports CSV to a file', async () => {
    const listed = JSON.parse((await cli('cert', 'list', '--json')).stdout) as { certificates: unknown[] };
    const [all, server, exported] = await Promise.all([
      cli('cert', 'search', '--all', '--limit', '1', '--json'),
      cli('cert', 'search', '--usage', 'Server', '--status', 'Active'),
      cli('cert', 'export', '--format', 'csv', '--output', path('inventory.csv')),
    ]);
    const walked = JSON.parse(all.stdout) as { certificates: { certificateId: string }[]; nextCursor: null };
    expect(walked.certificates).toHaveLength(listed.certificates.length);
    expect(new Set(walked.certificates.map((c) => c.certificateId)).size).toBe(listed.certificates.length);
    const [header, ...rows] = server.stdout.trimEnd().split('\n');
    expect(header.split(/\s{2,}/)).toEqual([
      'ID',
      'COMMON NAME',
      'CLIENT',
      'SERIAL',
      'STATUS',
      'USAGE',
      'SOURCE',
      'EXPIRES',
    ]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/ Active +Server +api /);
    expect(exported.status).toBe(0);
    const csv = readFileSync(path('inventory.csv'), 'utf8').trimEnd().split('\r\n');
    expect(csv[0].startsWith('certificateId,clientId,commonName,')).toBe(true);
    expect(csv).toHaveLength(listed.certificates.length + 1);
  });

  it('runs the replace-now drill: ca replace-leaves marks the Active leaves, ca replacement counts them', async () => {
    const { cas } = (await adminRequest(sut, 'GET', '/v2/ca', env.CA_MANAGER_TOKEN!)).json<{
      cas: { caId: string; role: string }[];
    }>();
    const caId = cas.find((ca) => ca.role === 'root')!.caId;
    const drill = await cli('ca', 'replace-leaves', caId, '--reason', 'retiring the CA');
    expect(drill).toMatchObject({ status: 0, stderr: '' });
    const marked = Number(/^Leaves to replace: +(\d+)$/m.exec(drill.stdout)?.[1]);
    expect(marked).toBeGreaterThanOrEqual(1);
    const count = JSON.parse((await cli('ca', 'replacement', caId, '--json')).stdout) as {
      total: number;
      replaced: number;
      remaining: number;
    };
    // The walk above renewed a leaf: that one counts as replaced already.
    expect(count.total).toBe(marked);
    expect(count.replaced + count.remaining).toBe(marked);
  });

  it('shows a Problem Details answer as one line and exits non-zero', async () => {
    const [bad, twice, missing, refused] = await Promise.all([
      cli('cert', 'issue', 'x', '--org', 'Acme', '--ou', 'IT', '--country', 'usa'),
      cli('ca', 'init', 'Again', '--org', 'Acme', '--country', 'US'),
      cli('cert', 'show', randomUUID()),
      cli('cert', 'list', '--token', 'not-a-jwt'),
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^error: 400 VALIDATION_FAILED: .*country/);

    expect(twice.status).toBe(1);
    expect(twice.stderr).toMatch(/^error: 409 /);

    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^error: 404 NOT_FOUND/);

    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^error: 401/);
  });

  it('refuses a wrong command line with exit 2, and never overwrites a file without --force', async () => {
    const [unknown, days] = await Promise.all([
      cli('cert', 'delete', 'x'),
      cli('cert', 'expiring', '--days', 'soon'),
    ]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'cert delete x'");
    expect(days.status).toBe(2);
    expect(days.stderr).toContain('--days must be a whole number');

    writeFileSync(path('taken.crt'), 'mine');
    const taken = await cli(
      'ca',
      'init',
      'Other',
      '--org',
      'Acme',
      '--country',
      'US',
      '--cert-file',
      path('taken.crt'),
      '--token',
      await sut.tokens.sign(randomUUID()),
    );
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain(`${path('taken.crt')} exists; pass --force to replace it`);
    expect(readFileSync(path('taken.crt'), 'utf8')).toBe('mine');
  });
});
