import { describeIfOpenssl, hasOpenssl, runOpenssl, spawnOpenssl } from './openssl';

describe('hasOpenssl', () => {
  it('answers the same every time', () => {
    expect(hasOpenssl()).toBe(hasOpenssl());
  });
});

describeIfOpenssl('runOpenssl', () => {
  it('returns stdout and passes stdin', () => {
    expect(runOpenssl(['version'])).toMatch(/^OpenSSL /);
    expect(runOpenssl(['base64', '-d'], 'aGk=\n')).toBe('hi');
  });

  it('throws with stderr when openssl fails', () => {
    expect(() => runOpenssl(['x509', '-in', '/nonexistent/ca.pem'])).toThrow(/openssl x509 .* exited with 1/);
  });

  it('spawnOpenssl returns status, stdout and stderr without throwing', () => {
    const result = spawnOpenssl(['x509', '-in', '/nonexistent/ca.pem']);
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toBe('');
  });
});
