import 'reflect-metadata';
import fc from 'fast-check';
import { parseOcspResponse } from '@ca/pki';
import { createTenant, issueBody } from './support/admin-api';
import { HttpAnswer, http } from './support/http';
import { ocspRequestDer } from './support/pki';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * DER fuzz of the public OCSP endpoints over HTTP (docs/ocsp.md): random and
 * mutated requests, by POST and by GET, always get an HTTP 200 OCSPResponse that is either
 * `malformedRequest` or a successful answer; never a 5xx, never `internalError`.
 */
jest.setTimeout(120_000);

const RUNS = 100;

/** Flipped, cut, inserted or removed octets of a valid request. */
const edits = fc.array(
  fc.record({
    kind: fc.constantFrom('xor', 'truncate', 'insert', 'remove'),
    at: fc.nat({ max: 10_000 }),
    value: fc.integer({ min: 1, max: 255 }),
  }),
  { minLength: 1, maxLength: 4 },
);

function mutate(der: Buffer, changes: { kind: string; at: number; value: number }[]): Buffer {
  let bytes = [...der];
  for (const { kind, at: rawAt, value } of changes) {
    const at = bytes.length === 0 ? 0 : rawAt % bytes.length;
    if (kind === 'xor') bytes[at] ^= value;
    else if (kind === 'truncate') bytes = bytes.slice(0, at);
    else if (kind === 'insert') bytes.splice(at, 0, value);
    else bytes.splice(at, 1);
  }
  return Buffer.from(bytes);
}

function expectOcspAnswer(answer: HttpAnswer, what: string): void {
  try {
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/ocsp-response/);
    const { responseStatus } = parseOcspResponse(new Uint8Array(answer.body));
    // A mutated issuer hash names another issuer: unauthorized (RFC 6960 2.3).
    expect(['malformedRequest', 'unauthorized', 'successful']).toContain(responseStatus);
  } catch (error) {
    throw new Error(`${what}: HTTP ${answer.status}, ${answer.body.length} octets\n${String(error)}`);
  }
}

describe.each(systemModes('OCSP fuzz suite'))('OCSP endpoints under DER fuzzing (%s)', (mode) => {
  let sut: SystemUnderTest;
  let ocspUrl: string;
  let valid: Buffer;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    const tenant = await createTenant(sut);
    const { serialNumber } = await tenant.issue(issueBody());
    ocspUrl = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`;
    valid = ocspRequestDer(tenant.caDer, serialNumber);
    // The unmutated request is answered (once the responder knows the CA and its signer).
    const deadline = Date.now() + 10_000;
    for (;;) {
      const answer = await post(valid);
      const parsed = answer.status === 200 ? parseOcspResponse(new Uint8Array(answer.body)) : undefined;
      if (parsed?.responseStatus === 'successful') break;
      if (Date.now() > deadline) throw new Error('the responder never answered the valid request');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  afterAll(async () => {
    await sut?.stop();
  });

  const post = (body: Buffer) =>
    http(ocspUrl, { method: 'POST', headers: { 'content-type': 'application/ocsp-request' }, body });

  it('answers mutated POST bodies with malformedRequest or a valid answer', async () => {
    await fc.assert(
      fc.asyncProperty(edits, async (changes) => {
        const body = mutate(valid, changes);
        expectOcspAnswer(await post(body), `POST ${body.toString('hex')}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers random POST bodies, empty ones included, with malformedRequest or a valid answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (octets) => {
        const body = Buffer.from(octets);
        expectOcspAnswer(await post(body), `POST ${body.toString('hex')}`);
      }),
      { numRuns: RUNS / 2 },
    );
  });

  it('answers mutated GET requests, base64url or percent-encoded base64, the same way', async () => {
    await fc.assert(
      fc.asyncProperty(edits, fc.boolean(), async (changes, standard) => {
        const der = mutate(valid, changes);
        const path = standard ? encodeURIComponent(der.toString('base64')) : der.toString('base64url');
        expectOcspAnswer(await http(`${ocspUrl}/${path}`), `GET ${path}`);
      }),
      { numRuns: RUNS },
    );
  });

  it.each([
    ['not base64', '%%%'],
    ['a broken escape', '%E0%A4%A'],
    ['padding only', '===='],
    ['dots', '....'],
    ['a 6 KB path', 'A'.repeat(6 * 1024)],
  ])('answers a GET with %s without a 5xx', async (_name, path) => {
    const answer = await http(`${ocspUrl}/${path}`);
    expect(answer.status).toBeLessThan(500);
    if (answer.status === 200) expectOcspAnswer(answer, `GET ${path}`);
  });
});
