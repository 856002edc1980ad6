import { createSocket } from 'node:dgram';
import { AcmeProblem } from '../protocol/acme-problem';
import { TxtLookup, checkDns01, dns01Digest, resolverTxtLookup } from './dns01-validator';

const keyAuthorization = 'token-abc.thumbprint-xyz';
const target = { name: 'wild.example.test', keyAuthorization };

const lookupOf =
  (records: Record<string, string[][]>): TxtLookup =>
  async (name) => {
    if (!records[name]) throw Object.assign(new Error('queryTxt ENOTFOUND'), { code: 'ENOTFOUND' });
    return records[name];
  };

const problemOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error instanceof AcmeProblem ? error.type : String(error);
  }
  return undefined;
};

describe('dns-01 (RFC 8555 8.4)', () => {
  it('expects base64url(SHA-256(key authorization)) at _acme-challenge.<name>', () => {
    // Computed independently: printf %s "$KA" | openssl dgst -sha256 -binary | base64url, unpadded.
    expect(dns01Digest(keyAuthorization)).toBe('e4poW-EBoq21JA9OrAOs8Izzml-1iB5kE5hWbN2FDkM');
  });

  it('accepts the digest among several TXT records, a long one split in character-strings', async () => {
    const digest = dns01Digest(keyAuthorization);
    const records = {
      '_acme-challenge.wild.example.test': [['v=spf1 -all'], [digest.slice(0, 20), digest.slice(20)]],
    };
    await expect(checkDns01(lookupOf(records), target)).resolves.toBeUndefined();
  });

  it('refuses a wrong value, a missing record and a failed query with the fitting ACME error', async () => {
    const wrong = { '_acme-challenge.wild.example.test': [[dns01Digest('other')]] };
    expect(await problemOf(checkDns01(lookupOf(wrong), target))).toBe('incorrectResponse');
    expect(await problemOf(checkDns01(lookupOf({}), target))).toBe('unauthorized');
    const failing: TxtLookup = () => Promise.reject(Object.assign(new Error('x'), { code: 'ESERVFAIL' }));
    expect(await problemOf(checkDns01(failing, target))).toBe('dns');
  });

  it('gives up on a resolver that never answers within the deadline', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    // The deadline runs on Jest's fake clock; the resolver's own retries (2 × 2.5 s, in C) do not,
    // so an answer at the fake 300 ms can only be the deadline's.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const lookup = resolverTxtLookup([`127.0.0.1:${silent.address().port}`], 300);
      let answered = false;
      const problem = problemOf(checkDns01(lookup, target)).finally(() => (answered = true));
      await jest.advanceTimersByTimeAsync(299);
      expect(answered).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(await problem).toBe('dns');
    } finally {
      jest.useRealTimers();
      silent.close();
    }
  });
});
