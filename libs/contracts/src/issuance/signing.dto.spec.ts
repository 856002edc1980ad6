import { randomUUID } from 'node:crypto';
import { CaError } from '../common/ca-error';
import { ErrorCode } from '../common/error-codes';
import {
  CrlEntryDifference,
  crlEntryDifferenceError,
  crlEntryDifferences,
  crlNumberUsedError,
  lastSignedCrlNumber,
} from './signing.dto';

describe('CRL refusal details', () => {
  it('carries each entry difference through the error shape, as revocation reads it', () => {
    const differences: CrlEntryDifference[] = [
      { kind: 'extra', serialHex: '7f01' },
      {
        kind: 'missing',
        serialHex: '00ab',
        revokedAt: new Date('2026-01-02T03:04:05Z'),
        reasonCode: 6,
        id: randomUUID(),
      },
    ];
    const refusal = new CaError(ErrorCode.Forbidden, 'refused', differences.map(crlEntryDifferenceError));
    // As it crosses the bus: JSON, then back into a CaError.
    const received = CaError.fromWire(JSON.parse(JSON.stringify(refusal.toShape())));
    expect(crlEntryDifferences(received)).toEqual(differences);
    expect(lastSignedCrlNumber(received)).toBeUndefined();
  });

  it('reads nothing from other errors or malformed details', () => {
    expect(crlEntryDifferences(new Error('x'))).toEqual([]);
    const odd = new CaError(ErrorCode.Forbidden, 'refused', [
      { field: 'crlEntries', message: 'extra zz' },
      { field: 'crlEntries', message: 'missing 01 x 1 not-a-uuid' },
      { field: 'crlEntries', message: 'extra 01; DROP TABLE' },
      crlNumberUsedError(5n),
    ]);
    expect(crlEntryDifferences(odd)).toEqual([]);
    expect(lastSignedCrlNumber(odd)).toBe(5n);
  });
});
