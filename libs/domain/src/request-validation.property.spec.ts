import 'reflect-metadata';
import fc from 'fast-check';
import {
  CaError,
  FieldError,
  InitializeCaRequest,
  ISO_3166_ALPHA_2_CODES,
  IssueCertificateV2Request,
  RenewCertificateRequest,
  RevokeCertificateRequest,
} from '@ca/contracts';
import { dnsNameProblem, looksLikeHostName } from './dns-name.rules';
import { v2IssuanceRuleErrors } from './issue-certificate-v2.rules';
import { validateDto } from './validate-request';

/**
 * Property tests over the request rules of docs/api.md#operations, docs/api.md#limits: any body inside the
 * limits is accepted, and the same body with exactly one field broken is refused with that field,
 * and only that field, named in `errors[]`. Bodies go through JSON first, as the gateway gets them.
 */

const RUNS = { numRuns: 150 };

/** Single characters from ASCII and beyond (accents, CJK, symbols, an astral emoji). */
const char = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  fc.constantFrom('é', 'ß', 'Ж', '中', '✓', '😀'),
);
/** Name text has no white space at either end and no control characters (RFC 4518 2.6.1). */
const text = (min: number, max: number) =>
  fc
    .string({ unit: char, minLength: min, maxLength: max })
    .filter((s) => s.trim() === s && !/[\u0000-\u001f\u007f-\u009f]/.test(s));
const country = fc.constantFrom(...ISO_3166_ALPHA_2_CODES);
const POLLUTING = new Set(['__proto__', 'constructor', 'prototype']);

/** Field errors a body gets: the DTO rules, then (v2 only) the rules across fields. */
async function fieldErrors<T extends object>(
  type: new () => T,
  body: unknown,
  rules?: (request: T) => FieldError[],
): Promise<FieldError[]> {
  try {
    const request = await validateDto(type, JSON.parse(JSON.stringify(body)));
    return rules ? rules(request) : [];
  } catch (error) {
    if (!(error instanceof CaError) || error.code !== 'VALIDATION_FAILED') throw error;
    return error.errors ?? [];
  }
}

/** `errors[]` names `field` (or an entry under it, like `subjectAlternativeNames[2]`) and nothing else. */
function expectOnly(errors: FieldError[], field: string): void {
  expect(errors.length).toBeGreaterThan(0);
  for (const error of errors) expect(error.field).toMatch(new RegExp(`^${field}(\\[\\d+\\]|\\.|$)`));
}

/** One broken field: a value of the wrong type, out of the limits, or the field left out. */
const wrongType = fc.constantFrom<unknown>(null, true, 42, [], {}, ['x']);
/** For optional fields: JSON null stands for "left out" there (class-validator IsOptional), so not broken. */
const wrongTypeNotNull = wrongType.filter((v) => v !== null);
const brokenText = (max: number) =>
  fc.oneof(
    wrongType.filter((v) => typeof v !== 'string'),
    fc.constant(''),
    text(max + 1, max + 20),
    fc.constant(undefined),
  );
const brokenInt = (min: number, max: number) =>
  fc.oneof(
    fc.integer({ min: -1_000_000, max: min - 1 }),
    fc.integer({ min: max + 1, max: 1_000_000 }),
    fc.double({ min, max, noInteger: true, noNaN: true }),
    fc.integer({ min, max }).map(String),
    wrongType.filter((v) => typeof v !== 'number'),
    fc.constant(undefined),
  );
const brokenCountry = fc.oneof(
  fc.constantFrom('UK', 'XX', 'EU', 'ZZ'),
  fc.stringMatching(/^[a-z]{2}$/),
  fc.stringMatching(/^[A-Z]{3,5}$/),
  fc.stringMatching(/^[A-Z]?[0-9]$/),
  wrongType,
  fc.constant(undefined),
);

/** A valid body with one field replaced (undefined: left out), and the field to expect. */
function withOneBroken(
  valid: fc.Arbitrary<Record<string, unknown>>,
  broken: Record<string, fc.Arbitrary<unknown>>,
): fc.Arbitrary<{ body: Record<string, unknown>; field: string }> {
  return fc
    .tuple(
      valid,
      fc.oneof(...Object.entries(broken).map(([field, value]) => value.map((v) => ({ field, value: v })))),
    )
    .map(([body, { field, value }]) => ({ body: { ...body, [field]: value }, field }));
}

describe('initialize CA request (docs/api.md#initialize-the-ca)', () => {
  const valid = fc.record({
    commonName: text(1, 64),
    organization: text(1, 64),
    country,
    validityYears: fc.integer({ min: 1, max: 30 }),
  });

  it('accepts every body inside the limits', async () => {
    await fc.assert(
      fc.asyncProperty(valid, async (body) =>
        expect(await fieldErrors(InitializeCaRequest, body)).toEqual([]),
      ),
      RUNS,
    );
  });

  it('refuses one broken field and names exactly it', async () => {
    const cases = withOneBroken(valid, {
      commonName: brokenText(64),
      organization: brokenText(64),
      country: brokenCountry,
      validityYears: brokenInt(1, 30),
      // An unknown field is refused by name, not dropped.
      keyAlgorithm: fc.constantFrom('RSA', 'ed25519'),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ body, field }) =>
        expectOnly(await fieldErrors(InitializeCaRequest, body), field),
      ),
      RUNS,
    );
  });
});

describe('issue certificate v1/v2 request (docs/api.md#issue-a-certificate-v1, docs/api.md#issue-a-certificate-v2)', () => {
  const dnsName = fc
    .tuple(fc.boolean(), fc.domain())
    .map(([wild, name]) => (wild ? `*.${name}` : name))
    .filter((name) => name.length <= 253 && dnsNameProblem(name) === undefined);
  const sans = fc.uniqueArray(dnsName, { minLength: 1, maxLength: 50, selector: (n) => n.toLowerCase() });
  const extensionKey = text(1, 255).filter((k) => !POLLUTING.has(k));
  const customExtensions = fc.dictionary(extensionKey, text(0, 255), { maxKeys: 10 });
  const v1Fields = {
    clientId: text(1, 100),
    commonName: text(1, 64),
    organization: text(1, 64),
    organizationalUnit: text(1, 64),
    country,
  };
  const V1_KEYS = ['clientId', 'commonName', 'organization', 'organizationalUnit', 'country'] as const;
  const clientBody = fc.record(
    {
      ...v1Fields,
      validityDays: fc.integer({ min: 1, max: 3650 }),
      usage: fc.constant('Client'),
      subjectAlternativeNames: fc.uniqueArray(dnsName, { maxLength: 5, selector: (n) => n.toLowerCase() }),
      customExtensions,
    },
    { requiredKeys: [...V1_KEYS, 'validityDays'] },
  );
  const serverBody = fc.record(
    {
      ...v1Fields,
      // A CN written like a host name has rules of its own (issue-certificate-v2.dto.spec.ts).
      commonName: text(1, 64).filter((name) => !looksLikeHostName(name)),
      validityDays: fc.integer({ min: 1, max: 825 }),
      usage: fc.constantFrom('Server', 'ClientAndServer'),
      subjectAlternativeNames: sans,
      mustStaple: fc.boolean(),
      customExtensions,
    },
    { requiredKeys: [...V1_KEYS, 'validityDays', 'usage', 'subjectAlternativeNames'] },
  );
  const valid = fc.oneof(clientBody, serverBody) as fc.Arbitrary<Record<string, unknown>>;
  const errorsOf = (body: unknown) => fieldErrors(IssueCertificateV2Request, body, v2IssuanceRuleErrors);

  it('accepts every body inside the limits', async () => {
    await fc.assert(
      fc.asyncProperty(valid, async (body) => expect(await errorsOf(body)).toEqual([])),
      RUNS,
    );
  });

  it('refuses one broken field and names exactly it', async () => {
    const badName = fc.constantFrom(
      '10.0.0.1',
      '*.*.example.com',
      'api.*.example.com',
      'a..example.com',
      'exa mple.com',
      `${'a'.repeat(64)}.example.com`,
      'bücher.example',
      'example.com.',
    );
    const cases = withOneBroken(serverBody as fc.Arbitrary<Record<string, unknown>>, {
      clientId: brokenText(100),
      commonName: brokenText(64),
      organization: brokenText(64),
      organizationalUnit: brokenText(64),
      country: brokenCountry,
      validityDays: fc.oneof(brokenInt(1, 3650), fc.integer({ min: 826, max: 3650 })),
      usage: fc.oneof(fc.constantFrom('server', 'Both', ''), wrongTypeNotNull),
      subjectAlternativeNames: fc.oneof(
        fc.constant([]),
        fc.constant(undefined),
        sans.map((names) => [...names, names[0].toUpperCase()]).filter((names) => names.length <= 50),
        fc.tuple(sans, badName).map(([names, bad]) => [...names.slice(0, 49), bad]),
        fc.array(dnsName, { minLength: 51, maxLength: 60 }),
        fc.constant([42]),
      ),
      mustStaple: fc.constantFrom('yes', 1),
      customExtensions: fc.oneof(
        fc.dictionary(extensionKey, text(0, 20), { minKeys: 11, maxKeys: 14 }),
        fc.tuple(extensionKey, text(256, 300)).map(([key, value]) => ({ [key]: value })),
        fc.constant({ key: 42 }),
        fc.constant('not an object'),
      ),
      responseFormat: fc.constantFrom('PEM', 'text', 42),
      passwordProtected: fc.constantFrom('true', 0),
      isCa: fc.constant(true),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ body, field }) => expectOnly(await errorsOf(body), field)),
      RUNS,
    );
  });

  it('refuses mustStaple on a client certificate, naming mustStaple', async () => {
    await fc.assert(
      fc.asyncProperty(clientBody, async (body) =>
        expectOnly(await errorsOf({ ...body, mustStaple: true }), 'mustStaple'),
      ),
      { numRuns: 30 },
    );
  });
});

describe('renew and revoke requests (docs/api.md#renew-a-certificate, docs/api.md#revoke-a-certificate)', () => {
  it('accepts every renewal inside the limits and names the one broken field', async () => {
    const valid = fc.record(
      {
        validityDays: fc.integer({ min: 1, max: 3650 }),
        responseFormat: fc.constantFrom('Text', 'File'),
        passwordProtected: fc.boolean(),
      },
      { requiredKeys: ['validityDays'] },
    );
    await fc.assert(
      fc.asyncProperty(valid, async (body) =>
        expect(await fieldErrors(RenewCertificateRequest, body)).toEqual([]),
      ),
      RUNS,
    );
    const cases = withOneBroken(valid, {
      validityDays: brokenInt(1, 3650),
      passwordProtected: fc.constantFrom('false', 1),
      commonName: text(1, 10),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ body, field }) =>
        expectOnly(await fieldErrors(RenewCertificateRequest, body), field),
      ),
      RUNS,
    );
  });

  it('accepts every revocation inside the limits and names the one broken field', async () => {
    const codes = [
      'Unspecified',
      'KeyCompromise',
      'CaCompromise',
      'AffiliationChanged',
      'Superseded',
      'CessationOfOperation',
      'CertificateHold',
      'PrivilegeWithdrawn',
      'AaCompromise',
    ];
    const valid = fc.record(
      { reason: text(1, 255), reasonCode: fc.constantFrom(...codes) },
      { requiredKeys: ['reason'] },
    );
    await fc.assert(
      fc.asyncProperty(valid, async (body) =>
        expect(await fieldErrors(RevokeCertificateRequest, body)).toEqual([]),
      ),
      RUNS,
    );
    const cases = withOneBroken(valid, {
      reason: brokenText(255),
      // Case matters, and the RFC 5280 number is not the name.
      // removeFromCRL belongs in delta CRLs only (RFC 5280 5.3.1).
      reasonCode: fc.oneof(
        fc.constantFrom(...codes.map((c) => c.toLowerCase())),
        fc.constantFrom('7', 1, 'RemoveFromCrl'),
      ),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ body, field }) =>
        expectOnly(await fieldErrors(RevokeCertificateRequest, body), field),
      ),
      RUNS,
    );
  });
});
