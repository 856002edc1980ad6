import { details, table } from './table';

describe('table', () => {
  it('aligns columns two spaces apart under their headers, without trailing blanks', () => {
    expect(
      table(
        ['ID', 'NAME', 'DAYS'],
        [
          ['a', 'billing-client', 19],
          ['bbbb', 'web', 0],
        ],
      ),
    ).toBe(['ID    NAME            DAYS', 'a     billing-client  19', 'bbbb  web             0'].join('\n'));
  });
});

describe('details', () => {
  it('aligns the values and leaves out empty ones', () => {
    expect(
      details([
        ['Serial', 'AB'],
        ['Revoked', undefined],
        ['Certificate id', 'x'],
      ]),
    ).toBe('Serial:          AB\nCertificate id:  x');
  });
});
