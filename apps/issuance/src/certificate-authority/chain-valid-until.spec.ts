import { buildCaCertificate, generateEcKeyPair, randomSerialNumber } from '@ca/pki';
import { chainValidUntil } from './certificate-authority.signer';
import { EXTERNAL_KEY_CUSTODY } from './pending-ca.entity';

const DAY = 86_400_000;
const now = Date.now();
const at = (days: number) => new Date(now + days * DAY);

async function caDer(days: number): Promise<Buffer> {
  const keys = await generateEcKeyPair(false);
  const der = await buildCaCertificate(
    {
      subject: { country: 'US', organization: 'Corp', commonName: `CA ${days}` },
      notBefore: new Date(now - DAY),
      notAfter: at(days),
      serialNumber: randomSerialNumber(),
    },
    keys,
  );
  return Buffer.from(der);
}

/**
 * RFC 5280 6.1.3: under a corporate root, what the issuing CA signs may not outlive the chain up to
 * that root (a 90-day leaf was issued under a 20-day root), even for a CA uploaded before its own
 * notAfter was checked against the chain.
 */
describe('chainValidUntil', () => {
  it('under a corporate root: the earliest notAfter of the CA, its intermediates and the root', async () => {
    const issuing = await caDer(365);
    const intermediate = await caDer(60);
    const corporate = { keyCustody: EXTERNAL_KEY_CUSTODY, notAfter: at(20) };
    expect(chainValidUntil({ notAfter: at(365) }, corporate, [issuing, intermediate])).toEqual(at(20));
    const longRoot = { keyCustody: EXTERNAL_KEY_CUSTODY, notAfter: at(400) };
    const until = chainValidUntil({ notAfter: at(365) }, longRoot, [issuing, intermediate]);
    expect(Math.abs(until.getTime() - at(60).getTime())).toBeLessThan(1000);
  });

  it('under a root of ours (or none): the CA notAfter, whatever cross certificates follow', async () => {
    const cross = await caDer(10);
    const ours = { keyCustody: 'local', notAfter: at(20) };
    expect(chainValidUntil({ notAfter: at(365) }, ours, [cross])).toEqual(at(365));
    expect(chainValidUntil({ notAfter: at(365) }, null, [])).toEqual(at(365));
  });
});
