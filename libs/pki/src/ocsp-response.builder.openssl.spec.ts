import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { derOctetString } from './der-writer';
import { type OcspCertId } from './ocsp-cert-id';
import { parseOcspRequest } from './ocsp-request.parser';
import {
  buildOcspErrorResponse,
  buildOcspResponse,
  type OcspCertStatus,
  type OcspResponseInput,
} from './ocsp-response.builder';
import { derToPem } from './pem';
import { createTestPki, describeIfOpenssl, runOpenssl, spawnOpenssl, type TestPki } from './testing';

// Responses checked by the openssl CLI as a relying party would: signature, delegated responder
// chained to the CA (EKU OCSPSigning), CertID matching, validity times, nonce.
//
// Two openssl traps: `-serial`/`-cert` build a new request in memory, and then `-reqin` is ignored
// and, unless `-no_nonce`, a fresh nonce of that new request is compared with the response's. So
// statuses are checked with `-issuer … -serial … -no_nonce`, and the nonce with `-reqin` alone.
describeIfOpenssl('OCSP responses checked by the openssl CLI', () => {
  let dir: string;
  let pki: TestPki;
  let caPem: string;
  let good: string;
  let revoked: string;
  const now = Date.now();
  const window = { thisUpdate: new Date(now - 60_000), nextUpdate: new Date(now + 3_600_000) };
  const revocationTime = new Date('2026-11-21T08:30:00Z');
  let fileCount = 0;

  /** `openssl ocsp … -reqout`, read back with parseOcspRequest. */
  const opensslRequest = (args: string[]) => {
    const path = join(dir, `req-${fileCount++}.der`);
    runOpenssl(['ocsp', '-issuer', caPem, ...args, '-reqout', path]);
    return { path, ...parseOcspRequest(readFileSync(path)) };
  };
  /** Our response to the parsed request, one status per CertID, written to a file. */
  const respond = async (
    certIds: OcspCertId[],
    statuses: OcspCertStatus[],
    overrides: Partial<OcspResponseInput> = {},
  ) => {
    const der = await buildOcspResponse({
      responses: certIds.map((certId, i) => ({ certId, status: statuses[i], ...window })),
      producedAt: new Date(now),
      responderCertificateDer: pki.ocspSignerDer,
      responderPrivateKey: pki.ocspSignerKeys.privateKey,
      ...overrides,
    });
    const path = join(dir, `resp-${fileCount++}.der`);
    writeFileSync(path, der);
    return path;
  };
  /** `openssl ocsp -respin … -CAfile ca.pem -issuer ca.pem [-sha256] -serial … -no_nonce`. */
  const checkStatus = (response: string, serials: string[], sha256 = false) =>
    spawnOpenssl([
      'ocsp',
      '-respin',
      response,
      '-CAfile',
      caPem,
      ...(sha256 ? ['-sha256'] : []),
      '-issuer',
      caPem,
      ...serials.flatMap((serial) => ['-serial', `0x${serial}`]),
      '-no_nonce',
    ]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pki-ocsp-resp-'));
    pki = await createTestPki('OCSP Root CA');
    caPem = join(dir, 'ca.pem');
    writeFileSync(caPem, derToPem(pki.caDer));
    good = (await pki.issueLeaf()).serialNumberHex;
    revoked = (await pki.issueLeaf()).serialNumberHex;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('verifies a good answer to a SHA-1 request', async () => {
    const { certIds } = opensslRequest(['-serial', `0x${good}`, '-no_nonce']);
    const result = checkStatus(await respond(certIds, [{ kind: 'good' }]), [good]);
    expect(result.stderr).toContain('Response verify OK');
    expect(result.stdout).toMatch(
      new RegExp(`^0x${good}: good\\n\\tThis Update: .+\\n\\tNext Update: .+\\n$`),
    );
    expect(result.status).toBe(0);
  });

  it('verifies a revoked answer with reason and revocation time, to a SHA-256 request', async () => {
    const { certIds } = opensslRequest(['-sha256', '-serial', `0x${revoked}`, '-no_nonce']);
    const response = await respond(certIds, [{ kind: 'revoked', revocationTime, reasonCode: 1 }]);
    const result = checkStatus(response, [revoked], true);
    expect(result.stderr).toContain('Response verify OK');
    expect(result.stdout).toContain(`0x${revoked}: revoked\n`);
    expect(result.stdout).toContain('\tReason: keyCompromise\n');
    expect(result.stdout).toContain('\tRevocation Time: Nov 21 08:30:00 2026 GMT\n');
    // The SHA-1 CertID does not match the SHA-256 one the response echoes.
    expect(checkStatus(response, [revoked]).stdout).toContain('ERROR: No Status found.');
  });

  it('verifies an unknown answer', async () => {
    const { certIds } = opensslRequest(['-serial', '0x0BADCAFE', '-no_nonce']);
    const result = checkStatus(await respond(certIds, [{ kind: 'unknown' }]), ['0BADCAFE']);
    expect(result.stderr).toContain('Response verify OK');
    expect(result.stdout).toContain('0x0BADCAFE: unknown\n');
  });

  it('verifies two answers in one response', async () => {
    const { certIds } = opensslRequest(['-serial', `0x${good}`, '-serial', `0x${revoked}`, '-no_nonce']);
    const response = await respond(certIds, [
      { kind: 'good' },
      { kind: 'revoked', revocationTime, reasonCode: 4 },
    ]);
    const result = checkStatus(response, [good, revoked]);
    expect(result.stderr).toContain('Response verify OK');
    expect(result.stdout).toMatch(new RegExp(`^0x${good}: good\\n`));
    expect(result.stdout).toMatch(new RegExp(`\\n0x${revoked}: revoked\\n[\\s\\S]*\\tReason: superseded\\n`));
  });

  it('passes the nonce check when the nonce of the request is echoed', async () => {
    const { path, certIds, nonce } = opensslRequest(['-serial', `0x${good}`]);
    expect(nonce).toBeDefined();
    const response = await respond(certIds, [{ kind: 'good' }], { nonce });
    const result = spawnOpenssl([
      'ocsp',
      '-reqin',
      path,
      '-respin',
      response,
      '-CAfile',
      caPem,
      '-resp_text',
    ]);
    expect(result.stderr).toContain('Response verify OK');
    expect(result.stderr).not.toMatch(/Nonce Verify error|WARNING: no nonce/);
    expect(result.stdout).toContain('Cert Status: good');
    expect(result.stdout).toMatch(/Responder Id: [0-9A-F]{40}\n/);
    expect(result.status).toBe(0);
  });

  it('fails the nonce check for another nonce, and warns without one', async () => {
    const { path, certIds } = opensslRequest(['-serial', `0x${good}`]);
    const other = await respond(certIds, [{ kind: 'good' }], {
      nonce: derOctetString(new Uint8Array(16).fill(1)),
    });
    const mismatch = spawnOpenssl(['ocsp', '-reqin', path, '-respin', other, '-CAfile', caPem]);
    expect(mismatch.stderr).toContain('Nonce Verify error');
    expect(mismatch.status).not.toBe(0);
    const without = spawnOpenssl([
      'ocsp',
      '-reqin',
      path,
      '-respin',
      await respond(certIds, [{ kind: 'good' }]),
      '-CAfile',
      caPem,
    ]);
    expect(without.stderr).toContain('WARNING: no nonce in response');
  });

  it('fails verification of a response changed after signing', async () => {
    const { certIds } = opensslRequest(['-serial', `0x${revoked}`, '-no_nonce']);
    const path = await respond(certIds, [{ kind: 'revoked', revocationTime, reasonCode: 1 }]);
    const der = readFileSync(path);
    // Turn keyCompromise into cACompromise inside the signed ResponseData.
    const reason = der.indexOf(Buffer.from([0xa0, 0x03, 0x0a, 0x01, 0x01]));
    der[reason + 4] = 0x02;
    writeFileSync(path, der);
    const result = checkStatus(path, [revoked]);
    expect(result.stderr).toContain('Response Verify Failure');
    expect(result.status).not.toBe(0);
  });

  it('prints the malformedRequest error response', () => {
    const path = join(dir, 'malformed.der');
    writeFileSync(path, buildOcspErrorResponse('malformedRequest'));
    const result = spawnOpenssl(['ocsp', '-respin', path, '-resp_text']);
    expect(result.stdout).toContain('Responder Error: malformedrequest (1)');
  });
});
