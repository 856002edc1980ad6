import { CaError } from '@ca/contracts';
import { auditPageParameters } from './audit.controller';

function fieldsOf(query: Record<string, unknown>): string[] {
  try {
    auditPageParameters(query);
  } catch (error) {
    return (error as CaError).errors?.map((e) => e.field) ?? ['?'];
  }
  return [];
}

/** GET /v2/audit (docs/api.md#audit-log): what the console's audit filters become, and what is refused. */
describe('audit page parameters', () => {
  it('reads action (a prefix), principal, time window, limit and cursor', () => {
    expect(
      auditPageParameters({
        action: 'certificate.',
        principal: 'ops@example.com',
        since: '2026-01-01T00:00:00Z',
        until: '2026-01-02T00:00:00Z',
        limit: '50',
        cursor: '1234',
      }),
    ).toEqual({
      filter: {
        actionPrefix: 'certificate.',
        principal: 'ops@example.com',
        since: new Date('2026-01-01T00:00:00Z'),
        until: new Date('2026-01-02T00:00:00Z'),
        beforeId: 1234,
      },
      limit: 50,
    });
    expect(auditPageParameters({})).toEqual({ filter: {}, limit: 100 });
  });

  it('names every bad or unknown parameter', () => {
    expect(fieldsOf({ limit: '0' })).toEqual(['limit']);
    expect(fieldsOf({ limit: '1001' })).toEqual(['limit']);
    expect(fieldsOf({ cursor: 'abc' })).toEqual(['cursor']);
    expect(fieldsOf({ since: 'yesterday' })).toEqual(['since']);
    expect(fieldsOf({ action: 'x%' })).toEqual(['action']);
    expect(fieldsOf({ action: ['a', 'b'] })).toEqual(['action']);
    expect(fieldsOf({ tenantId: 'other' })).toEqual(['tenantId']);
  });
});
