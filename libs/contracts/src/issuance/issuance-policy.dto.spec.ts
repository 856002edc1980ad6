import 'reflect-metadata';
import { CaError } from '../common/ca-error';
import { validateDto } from '../common/validate-dto';
import { IssuancePolicyRequest, MAX_POLICY_SUFFIXES, normalizedPolicySuffixes } from './issuance-policy.dto';

async function fieldsRefused(body: unknown): Promise<string[]> {
  try {
    await validateDto(IssuancePolicyRequest, body);
  } catch (error) {
    return ((error as CaError).errors ?? []).map(({ field }) => field);
  }
  return [];
}

describe('IssuancePolicyRequest', () => {
  it('accepts DNS suffixes, a single private label and an empty list', async () => {
    expect(
      await fieldsRefused({ allowedDnsSuffixes: ['example.com', 'xn--bcher-kva.example', 'corp'] }),
    ).toEqual([]);
    expect(await fieldsRefused({ allowedDnsSuffixes: [] })).toEqual([]);
  });

  it('names each suffix that is not a DNS name', async () => {
    expect(
      await fieldsRefused({
        allowedDnsSuffixes: ['ok.example', '*.example.com', '10.0.0.1', 'a..b', 'ünicode.example', 'x.'],
      }),
    ).toEqual([
      'allowedDnsSuffixes[1]',
      'allowedDnsSuffixes[2]',
      'allowedDnsSuffixes[3]',
      'allowedDnsSuffixes[4]',
      'allowedDnsSuffixes[5]',
    ]);
  });

  it('refuses a missing or null list, non-strings, too many entries and unknown fields', async () => {
    expect(await fieldsRefused({})).toContain('allowedDnsSuffixes');
    expect(await fieldsRefused({ allowedDnsSuffixes: null })).toContain('allowedDnsSuffixes');
    expect(await fieldsRefused({ allowedDnsSuffixes: [42] })).toContain('allowedDnsSuffixes');
    const many = Array.from({ length: MAX_POLICY_SUFFIXES + 1 }, (_, i) => `s${i}.example`);
    expect(await fieldsRefused({ allowedDnsSuffixes: many })).toContain('allowedDnsSuffixes');
    expect(await fieldsRefused({ allowedDnsSuffixes: [], allowedIpRanges: [] })).toContain('allowedIpRanges');
  });
});

describe('normalizedPolicySuffixes', () => {
  it('lower-cases and keeps the first of each suffix', () => {
    expect(normalizedPolicySuffixes(['B.example', 'a.example', 'b.EXAMPLE'])).toEqual([
      'b.example',
      'a.example',
    ]);
  });
});
