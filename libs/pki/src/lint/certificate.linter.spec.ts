import { lintMetrics } from '@ca/observability';
import { encodeTimeDer } from '../der-time';
import { KEY_PURPOSE_ID } from '../extensions';
import { assertTbsCertificateLints, CERTIFICATE_LINTS, lintTbsCertificate } from './certificate.linter';
import {
  C,
  CN,
  EXTENSIONS,
  generalizedTime,
  name,
  O,
  tbsCertificate,
  type TbsParts,
  UTF8,
  utcTime,
  VALID_LEAF,
} from './lint.fixtures';

const RSA = '1.2.840.113549.1.1.1';
const IA5 = 0x16;
const BMP = 0x1e;
const [, , eku, , ski, aki] = VALID_LEAF.extensions;

/** VALID_LEAF with some extensions swapped: `at` index → replacement (undefined: left out). */
function withExtensions(changes: Record<number, Uint8Array | undefined>): Partial<TbsParts> {
  return {
    extensions: VALID_LEAF.extensions.flatMap((ext, index) =>
      index in changes ? (changes[index] ? [changes[index]] : []) : [ext],
    ),
  };
}

const CA_EXTENSIONS = [EXTENSIONS.basicConstraints(true), EXTENSIONS.keyUsage([5, 6]), ski, aki];

describe('certificate lints', () => {
  it('pass a valid server leaf, a client leaf and a CA', () => {
    expect(lintTbsCertificate(tbsCertificate())).toEqual([]);
    const client = withExtensions({ 2: EXTENSIONS.extKeyUsage([KEY_PURPOSE_ID.clientAuth]), 3: undefined });
    expect(
      lintTbsCertificate(tbsCertificate({ ...client, subject: name([CN, UTF8, 'payments.client']) })),
    ).toEqual([]);
    expect(lintTbsCertificate(tbsCertificate({ extensions: CA_EXTENSIONS }))).toEqual([]);
    expect(() => assertTbsCertificateLints(tbsCertificate())).not.toThrow();
  });

  it('lets a server leaf be valid 825 days and a client leaf longer', () => {
    const days825 = encodeTimeDer(new Date('2028-04-04T23:59:59Z')); // 2026-01-01 included: 825 days
    expect(lintTbsCertificate(tbsCertificate({ notAfter: days825 }))).toEqual([]);
    const client = withExtensions({ 2: EXTENSIONS.extKeyUsage([KEY_PURPOSE_ID.clientAuth]), 3: undefined });
    const tenYears = encodeTimeDer(new Date('2035-12-31T23:59:59Z'));
    expect(
      lintTbsCertificate(
        tbsCertificate({ ...client, subject: name([CN, UTF8, 'payments.client']), notAfter: tenYears }),
      ),
    ).toEqual([]);
  });

  // One failing example per lint: the valid leaf with one thing broken.
  const broken: [string, Partial<TbsParts>][] = [
    ['e_cert_serial_number_not_positive', { serial: Uint8Array.of(0x80, ...new Uint8Array(15).fill(1)) }],
    ['e_cert_serial_number_not_positive', { serial: new Uint8Array(9) }],
    [
      'e_cert_serial_number_longer_than_20_octets',
      { serial: Uint8Array.of(0x7f, ...new Uint8Array(20).fill(1)) },
    ],
    ['e_cert_serial_number_low_entropy', { serial: Uint8Array.of(0x00, 0xff, 1, 2, 3, 4, 5, 6) }],
    ['e_validity_not_before_after_not_after', { notAfter: VALID_LEAF.notBefore }],
    ['e_validity_time_encoding', { notAfter: generalizedTime('20270101000000') }],
    // 2026-01-01 to 2028-04-06 00:00:00 inclusive: 826 days and a second.
    ['e_server_leaf_validity_over_825_days', { notAfter: encodeTimeDer(new Date('2028-04-06T00:00:00Z')) }],
    ['e_subject_name_encoding', { subject: name([C, UTF8, 'US'], [CN, UTF8, 'api.example.com']) }],
    ['e_subject_name_encoding', { subject: name([CN, BMP, 'api.example.com']) }],
    ['e_subject_name_encoding', { subject: name([CN, UTF8, '']) }],
    ['e_issuer_name_encoding', { issuer: name([O, IA5, 'Acme']) }],
    ['e_ext_duplicate_extension', { extensions: [...VALID_LEAF.extensions, eku] }],
    [
      'e_ext_basic_constraints_not_critical',
      { extensions: [EXTENSIONS.basicConstraints(true, false), ...CA_EXTENSIONS.slice(1)] },
    ],
    ['e_ext_key_usage_not_critical', withExtensions({ 1: EXTENSIONS.keyUsage([0], false) })],
    ['e_ext_extended_key_usage_critical', withExtensions({ 2: EXTENSIONS.extKeyUsage(undefined, true) })],
    [
      'e_ext_san_not_critical_without_subject',
      { subject: name(), ...withExtensions({ 2: EXTENSIONS.extKeyUsage([KEY_PURPOSE_ID.clientAuth]) }) },
    ],
    ['e_ext_custom_extension_critical', withExtensions({ 8: EXTENSIONS.custom(true) })],
    ['e_ext_key_usage_missing', withExtensions({ 1: undefined })],
    ['e_ec_key_usage_encipherment', withExtensions({ 1: EXTENSIONS.keyUsage([0, 2]) })],
    ['e_ec_key_usage_encipherment', withExtensions({ 1: EXTENSIONS.keyUsage([0, 3]) })],
    [
      'e_ca_key_usage_cert_sign_crl_sign',
      { extensions: [CA_EXTENSIONS[0], EXTENSIONS.keyUsage([5]), ski, aki] },
    ],
    ['e_leaf_key_usage_cert_sign', withExtensions({ 1: EXTENSIONS.keyUsage([0, 5]) })],
    ['e_server_cn_not_in_san', withExtensions({ 3: EXTENSIONS.subjectAltName(['www.example.com']) })],
    ['e_server_cn_not_in_san', { subject: name([CN, UTF8, 'API.example.com']) }], // byte for byte
    ['e_server_without_san', { subject: name([CN, UTF8, 'Web']), ...withExtensions({ 3: undefined }) }],
    ['e_ext_authority_key_identifier_missing', withExtensions({ 5: undefined })],
    ['e_ext_subject_key_identifier_missing', withExtensions({ 4: undefined })],
    ['e_ext_key_identifier_critical', withExtensions({ 5: EXTENSIONS.authorityKeyIdentifier(true) })],
    [
      'e_ext_crl_distribution_point_not_http',
      withExtensions({ 6: EXTENSIONS.crlDistributionPoints('ldap://dir/cn=crl') }),
    ],
    [
      'e_ext_authority_info_access_not_http',
      withExtensions({ 7: EXTENSIONS.authorityInfoAccess('ftp://pki.example.com/ocsp') }),
    ],
  ];

  it.each(broken)('fails %s', (lint, parts) => {
    const findings = lintTbsCertificate(tbsCertificate(parts));
    expect(findings.map((finding) => finding.lint)).toContain(lint);
  });

  it('takes 1950 as a UTCTime, and 2050 only as a GeneralizedTime', () => {
    // A CA: a server leaf that long would break its 825-day lint.
    const ca = { extensions: CA_EXTENSIONS };
    expect(lintTbsCertificate(tbsCertificate({ ...ca, notBefore: utcTime('500101000000') }))).toEqual([]);
    expect(lintTbsCertificate(tbsCertificate({ ...ca, notAfter: utcTime('491231235959') }))).toEqual([]);
    expect(
      lintTbsCertificate(tbsCertificate({ ...ca, notAfter: generalizedTime('20500101000000') })),
    ).toEqual([]);
  });

  it('lets an RSA key do keyEncipherment, but not an EC key', () => {
    const parts = withExtensions({ 1: EXTENSIONS.keyUsage([0, 2]) });
    expect(lintTbsCertificate(tbsCertificate({ ...parts, keyAlgorithm: RSA }))).toEqual([]);
  });

  it('lets an https URL through (a responder published behind TLS)', () => {
    const parts = withExtensions({ 6: EXTENSIONS.crlDistributionPoints('https://pki.example.com/crl') });
    expect(lintTbsCertificate(tbsCertificate(parts))).toEqual([]);
  });

  it('reports what is not a TBSCertificate at all as e_cert_not_der', () => {
    expect(lintTbsCertificate(Uint8Array.of(0x30, 5, 2, 1))).toEqual([
      { lint: 'e_cert_not_der', message: expect.any(String) },
    ]);
  });

  it('has one failing example per lint in this spec', () => {
    const covered = new Set(broken.map(([lint]) => lint));
    for (const lint of CERTIFICATE_LINTS) expect(covered).toContain(lint.name);
  });

  it('counts each failed lint in ca_lint_failures_total{lint}', async () => {
    const count = async () =>
      (await lintMetrics.failuresTotal.get()).values.find(
        (v) => v.labels.lint === 'e_leaf_key_usage_cert_sign',
      )?.value ?? 0;
    const before = await count();
    expect(() =>
      assertTbsCertificateLints(tbsCertificate(withExtensions({ 1: EXTENSIONS.keyUsage([0, 5]) }))),
    ).toThrow();
    expect(await count()).toBe(before + 1);
  });

  it('refuses with CERTIFICATE_LINT_FAILED naming every failed lint', () => {
    const tbs = tbsCertificate(withExtensions({ 1: EXTENSIONS.keyUsage([0, 2], false) }));
    expect(() => assertTbsCertificateLints(tbs)).toThrow(
      expect.objectContaining({
        code: 'CERTIFICATE_LINT_FAILED',
        errors: [
          { field: 'e_ext_key_usage_not_critical', message: expect.any(String) },
          { field: 'e_ec_key_usage_encipherment', message: expect.any(String) },
        ],
      }),
    );
  });
});
