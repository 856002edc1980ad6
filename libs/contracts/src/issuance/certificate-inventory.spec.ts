import { CaError } from '../common/ca-error';
import { canonicalInventoryQuery, parseInventoryQuery } from './certificate-inventory';

const fieldsOf = (raw: unknown, paging = true): string[] => {
  try {
    parseInventoryQuery(raw, paging);
  } catch (error) {
    return ((error as CaError).errors ?? []).map((e) => e.field);
  }
  return [];
};

describe('inventory query parameters', () => {
  it('normalizes: statuses in one order, q lower-cased, dates to UTC, defaults for sort and limit', () => {
    expect(
      parseInventoryQuery({
        status: 'Revoked,Active,Revoked',
        q: 'Web.Example',
        expiresAfter: '2027-01-31T02:00:00+02:00',
      }),
    ).toEqual({
      filter: { status: ['Active', 'Revoked'], q: 'web.example', expiresAfter: '2027-01-31T00:00:00.000Z' },
      sort: '-issuedAt',
      limit: 100,
    });
  });

  it('binds a cursor to the filter and order, whatever the parameter order or page size', () => {
    const a = parseInventoryQuery({ clientId: 'x', usage: 'Server', limit: '5' });
    const b = parseInventoryQuery({ usage: 'Server', clientId: 'x', limit: '50' });
    expect(canonicalInventoryQuery(a.filter, a.sort)).toBe(canonicalInventoryQuery(b.filter, b.sort));
    const c = parseInventoryQuery({ usage: 'Server', clientId: 'x', sort: 'expiresAt' });
    expect(canonicalInventoryQuery(c.filter, c.sort)).not.toBe(canonicalInventoryQuery(a.filter, a.sort));
  });

  it('names every bad parameter, and refuses paging where there is none', () => {
    expect(fieldsOf({ limit: '0', status: 'Valid', caId: 'x', q: 'a\u0001b', extra: '1' }).sort()).toEqual(
      ['caId', 'extra', 'limit', 'q', 'status'].sort(),
    );
    expect(fieldsOf({ issuedBefore: '2027-01-31' })).toEqual(['issuedBefore']);
    expect(fieldsOf({ limit: '10', cursor: 'c' }, false).sort()).toEqual(['cursor', 'limit']);
    expect(fieldsOf({ status: ['Active', 'Revoked'] })).toEqual(['status']);
    expect(fieldsOf([])).toEqual(['filter']);
  });
});
