import { apiFilter, filterFromSearch, pageQuery, searchOfFilter } from './filters';

describe('inventory filter', () => {
  const now = new Date('2026-01-01T00:00:00.000Z');

  it('round-trips through the page URL, dropping empty fields and unknown sorts', () => {
    const filter = filterFromSearch(new URLSearchParams('q=api&status=Active&expiry=30&sort=bogus'));
    expect(filter.sort).toBe('');
    expect(searchOfFilter(filter)).toBe('?q=api&status=Active&expiry=30');
  });

  it('turns "expires within N days" into a fixed window from the walk’s instant', () => {
    const filter = filterFromSearch(new URLSearchParams('expiry=30&usage=Server&source=acme'));
    expect(apiFilter(filter, now)).toEqual({
      usage: 'Server',
      source: 'acme',
      expiresAfter: '2026-01-01T00:00:00.000Z',
      expiresBefore: '2026-01-31T00:00:00.000Z',
    });
    expect(apiFilter(filterFromSearch(new URLSearchParams('expiry=past')), now)).toEqual({
      expiresBefore: '2026-01-01T00:00:00.000Z',
    });
  });

  it('pages with the same parameters plus limit and cursor (a cursor is bound to its query)', () => {
    const filter = filterFromSearch(new URLSearchParams('q=%20api%20&sort=expiresAt'));
    expect(pageQuery(filter, now, 200, 'abc')).toEqual({
      q: 'api',
      sort: 'expiresAt',
      limit: '200',
      cursor: 'abc',
    });
    // The bulk revocation's filter has no sort, limit or cursor.
    expect(apiFilter(filter, now)).toEqual({ q: 'api' });
  });
});
