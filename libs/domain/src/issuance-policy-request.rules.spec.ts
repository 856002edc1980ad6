import 'reflect-metadata';
import { CaError, IssuancePolicyRequest, MAX_POLICY_SUFFIXES } from '@ca/contracts';
import { normalizedPolicySuffixes, normalizedPolicyUsages } from './issuance-policy.rules';
import { validateDto } from './validate-request';

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

describe('IssuancePolicyRequest allowedUsages', () => {
  const withUsages = (allowedUsages: unknown) => fieldsRefused({ allowedDnsSuffixes: [], allowedUsages });

  it('accepts Client, Server, both, duplicates, and no field at all', async () => {
    expect(await withUsages(['Client'])).toEqual([]);
    expect(await withUsages(['Server'])).toEqual([]);
    expect(await withUsages(['Server', 'Client', 'Client'])).toEqual([]);
    expect(await fieldsRefused({ allowedDnsSuffixes: [] })).toEqual([]);
  });

  it('refuses an empty list, an unknown or miscased usage and a non-list', async () => {
    expect(await withUsages([])).toEqual(['allowedUsages']);
    expect(await withUsages(['ClientAndServer'])).toEqual(['allowedUsages']);
    expect(await withUsages(['client'])).toEqual(['allowedUsages']);
    expect(await withUsages(['Client', 42])).toEqual(['allowedUsages']);
    expect(await withUsages('Client')).toContain('allowedUsages');
  });
});

describe('normalizedPolicyUsages', () => {
  it('keeps each usage once, Client first; no list means both', () => {
    expect(normalizedPolicyUsages(['Server', 'Client', 'Server'])).toEqual(['Client', 'Server']);
    expect(normalizedPolicyUsages(['Server'])).toEqual(['Server']);
    expect(normalizedPolicyUsages(undefined)).toEqual(['Client', 'Server']);
    expect(normalizedPolicyUsages(null)).toEqual(['Client', 'Server']);
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
