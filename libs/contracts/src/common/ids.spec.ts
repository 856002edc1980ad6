import { isUuid, parseTenantId, parseUuid } from './ids';

describe('ids', () => {
  const id = '3F2504E0-4F89-11D3-9A0C-0305E82C3301';

  it('parses a UUID in either case to lower case', () => {
    expect(parseUuid(id)).toBe(id.toLowerCase());
    expect(parseTenantId(id.toLowerCase())).toBe(id.toLowerCase());
  });

  it.each([undefined, null, 42, '', 'not-a-uuid', `${id} `, `{${id}}`, id.replace(/-/g, '')])(
    'refuses %p',
    (value) => {
      expect(isUuid(value)).toBe(false);
      expect(parseUuid(value)).toBeUndefined();
      expect(parseTenantId(value)).toBeUndefined();
    },
  );
});
