import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { REDACTED, scrubSecrets } from './secret-scrubber';

const pem =
  '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';
const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJ0ZW5hbnRJZCI6IngifQ.c2lnbmF0dXJlc2lnbmF0dXJl';

describe('secret scrubbing', () => {
  it('redacts secret fields by name, at any depth', () => {
    const out = scrubSecrets({
      body: { privateKeyPem: 'x', password: 'p', pfxBase64: 'b', nested: [{ caKek: 'k' }] },
      keep: 'ok',
    });
    expect(out).toEqual({
      body: {
        privateKeyPem: REDACTED,
        password: REDACTED,
        pfxBase64: REDACTED,
        nested: [{ caKek: REDACTED }],
      },
      keep: 'ok',
    });
  });

  it('redacts PEM private keys, bearer tokens and JWTs inside free text', () => {
    const text = scrubSecrets(`failed with ${pem} and Authorization: Bearer ${jwt} then ${jwt}`);
    expect(text).not.toContain('MIGHAgEA');
    expect(text).not.toContain('eyJhbGci');
  });

  it('keeps certificates, which are public', () => {
    const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    expect(scrubSecrets({ certificatePem: cert })).toEqual({ certificatePem: cert });
  });

  it('applies to every logger line, message and error alike', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    const logger = createLogger({ level: 'debug', service: 'test', destination });
    logger.debug({ req: { headers: { authorization: `Bearer ${jwt}` } }, privateKeyPem: pem }, `key ${pem}`);
    logger.error({ err: new Error(`boom ${pem}`) }, 'failure');
    const all = lines.join('\n');
    expect(all).not.toContain('MIGHAgEA');
    expect(all).not.toContain(jwt);
    expect(lines).toHaveLength(2);
  });
});
