import { ariCertId, parseAriCertId } from './ari-cert-id';
import { renewalWindow } from './renewal-window';

describe('ARI certID (RFC 9773 4.1)', () => {
  // RFC 9773 4.1's own example: AKI keyIdentifier 69:88:5B:…:C8:D4, serial 00:87:65:43:21.
  const example = 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE';

  it("reads the RFC's example into its key identifier and serial", () => {
    expect(parseAriCertId(example)).toEqual({
      authorityKeyIdentifierHex: '69885B6B87464041E1B37B847BA0AE2CDE01C8D4',
      serialNumberHex: '87654321',
    });
  });

  it("writes the RFC's example from its key identifier and serial", () => {
    expect(
      ariCertId({
        authorityKeyIdentifierHex: '69885B6B87464041E1B37B847BA0AE2CDE01C8D4',
        serialNumberHex: '87654321',
      }),
    ).toBe(example);
  });

  it.each([
    ['no dot', 'aYhba4dGQEHhs3uEe6CuLN4ByNQ'],
    ['padding', 'aYhba4dGQEHhs3uEe6CuLN4ByNQ=.AIdlQyE'],
    ['a negative serial', 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.h2VDIQ'],
    ['a serial with a superfluous zero', 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AAFl'],
    ['three parts', 'a.b.c'],
  ])('names no certificate with %s', (_what, certId) => {
    expect(parseAriCertId(certId)).toBeUndefined();
  });
});

describe('renewalWindow', () => {
  const notBefore = new Date('2026-01-01T00:00:00Z');
  const notAfter = new Date('2026-04-01T00:00:00Z');
  const lifetime = notAfter.getTime() - notBefore.getTime();

  it('lies within the last third of the validity, and differs between serials', () => {
    const starts = new Set<number>();
    for (const serialNumberHex of ['01', '02', '03', '7F00AA', '1234567890']) {
      const { start, end } = renewalWindow({ serialNumberHex, notBefore, notAfter });
      expect(start.getTime()).toBeGreaterThanOrEqual(notBefore.getTime() + (2 * lifetime) / 3 - 1);
      expect(end.getTime()).toBeLessThanOrEqual(notAfter.getTime());
      expect(end.getTime()).toBeGreaterThan(start.getTime());
      starts.add(start.getTime());
    }
    expect(starts.size).toBe(5);
  });

  it('ends when replacement was asked for, once it was', () => {
    const replaceAfter = new Date('2026-02-01T00:00:00Z');
    const { start, end } = renewalWindow({ serialNumberHex: '01', notBefore, notAfter, replaceAfter });
    expect(end).toEqual(replaceAfter);
    expect(start.getTime()).toBeLessThan(end.getTime());
  });
});
