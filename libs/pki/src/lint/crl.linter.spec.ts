import {
  C,
  CRL_NUMBER,
  generalizedTime,
  name,
  tbsCertList,
  type CrlParts,
  UTF8,
  VALID_CRL,
} from './lint.fixtures';
import { assertTbsCertListLints, CRL_LINTS, lintTbsCertList } from './crl.linter';

const [aki] = VALID_CRL.extensions;

describe('CRL lints', () => {
  it('pass a valid full CRL, with and without entries', () => {
    expect(lintTbsCertList(tbsCertList())).toEqual([]);
    expect(lintTbsCertList(tbsCertList({ reasonCodes: [] }))).toEqual([]);
    expect(() => assertTbsCertListLints(tbsCertList())).not.toThrow();
  });

  const broken: [string, Partial<CrlParts>][] = [
    ['e_crl_not_version_2', { version: undefined }],
    ['e_crl_issuer_name_encoding', { issuer: name() }],
    ['e_crl_issuer_name_encoding', { issuer: name([C, UTF8, 'US']) }],
    ['e_crl_next_update_missing', { nextUpdate: undefined }],
    ['e_crl_this_update_not_before_next_update', { nextUpdate: VALID_CRL.thisUpdate }],
    ['e_crl_time_encoding', { thisUpdate: generalizedTime('20261126000000') }],
    ['e_crl_time_encoding', { revocationDate: generalizedTime('20261125000000') }],
    ['e_crl_number_missing', { extensions: [aki] }],
    ['e_crl_number_critical', { extensions: [aki, CRL_NUMBER([1], true)] }],
    [
      'e_crl_number_longer_than_20_octets',
      { extensions: [aki, CRL_NUMBER([0x7f, ...new Array(20).fill(1)])] },
    ],
    ['e_crl_number_longer_than_20_octets', { extensions: [aki, CRL_NUMBER([0x80])] }], // negative
    ['e_crl_authority_key_identifier_missing', { extensions: [CRL_NUMBER()] }],
    ['e_crl_reason_code_invalid', { reasonCodes: [7] }],
    ['e_crl_reason_remove_from_crl_in_full_crl', { reasonCodes: [1, 8] }],
  ];

  it.each(broken)('fails %s', (lint, parts) => {
    expect(lintTbsCertList(tbsCertList(parts)).map((finding) => finding.lint)).toContain(lint);
  });

  it('has one failing example per lint in this spec', () => {
    const covered = new Set(broken.map(([lint]) => lint));
    for (const lint of CRL_LINTS) expect(covered).toContain(lint.name);
  });

  it('refuses with CERTIFICATE_LINT_FAILED', () => {
    expect(() => assertTbsCertListLints(tbsCertList({ reasonCodes: [8] }))).toThrow(
      expect.objectContaining({
        code: 'CERTIFICATE_LINT_FAILED',
        errors: [{ field: 'e_crl_reason_remove_from_crl_in_full_crl', message: expect.any(String) }],
      }),
    );
    expect(lintTbsCertList(Uint8Array.of(1, 2, 3))).toEqual([
      { lint: 'e_crl_not_der', message: expect.any(String) },
    ]);
  });
});
