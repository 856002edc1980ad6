import { responseData } from './lint.fixtures';
import {
  assertOcspResponseDataLints,
  lintOcspResponderCertificate,
  lintOcspResponseData,
  OCSP_RESPONSE_LINTS,
} from './ocsp.linter';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 26, 12, minutes));

describe('OCSP lints', () => {
  it('pass a response produced now, valid for an hour', () => {
    expect(
      lintOcspResponseData(responseData({ producedAt: at(0), thisUpdate: at(0), nextUpdate: at(60) })),
    ).toEqual([]);
  });

  const broken: [string, Parameters<typeof responseData>[0]][] = [
    ['e_ocsp_next_update_missing', { producedAt: at(0), thisUpdate: at(0) }],
    ['e_ocsp_this_update_after_next_update', { producedAt: at(0), thisUpdate: at(30), nextUpdate: at(20) }],
    ['e_ocsp_produced_at_after_next_update', { producedAt: at(90), thisUpdate: at(0), nextUpdate: at(60) }],
  ];

  it.each(broken)('fails %s', (lint, times) => {
    expect(lintOcspResponseData(responseData(times)).map((finding) => finding.lint)).toContain(lint);
  });

  it('has one failing example per lint in this spec', () => {
    const covered = new Set(broken.map(([lint]) => lint));
    for (const lint of OCSP_RESPONSE_LINTS) expect(covered).toContain(lint.name);
  });

  it('lets an unknown answer leave nextUpdate out (RFC 6960 2.4), so that nobody caches it', () => {
    expect(
      lintOcspResponseData(responseData({ producedAt: at(0), thisUpdate: at(0), unknown: true })),
    ).toEqual([]);
  });

  it('refuses with CERTIFICATE_LINT_FAILED', () => {
    expect(() => assertOcspResponseDataLints(responseData(broken[1][1]))).toThrow(
      expect.objectContaining({ code: 'CERTIFICATE_LINT_FAILED' }),
    );
  });

  it('leaves what is not a certificate to the parser', () => {
    expect(lintOcspResponderCertificate(Uint8Array.of(0x30, 0))).toEqual([]);
  });
});
