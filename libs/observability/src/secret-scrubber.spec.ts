import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { generateKeyPairSync } from 'node:crypto';
import { REDACTED, isSecretField, scrubSecrets } from './secret-scrubber';

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

  it.each([
    'pkcs12Password',
    'pkcs12Base64',
    'p12',
    'privateKeyDer',
    'newKekBase64',
    'wrapped_key',
    'downloadToken',
    'x-api-secret',
    'PKCS11_PIN',
  ])('treats the field %s as secret, whatever the naming style', (name) => {
    expect(isSecretField(name)).toBe(true);
  });

  it.each([
    'certificatePem',
    'serialNumber',
    'keyAlgorithm',
    'publicKeySpki',
    'tenantId',
    'shipping',
    'spinner',
  ])('keeps the field %s', (name) => {
    expect(isSecretField(name)).toBe(false);
  });

  it('redacts private keys in base64 DER (PKCS#8, SEC1) inside free text, standard or url-safe', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
    const sec1 = privateKey.export({ format: 'der', type: 'sec1' });
    for (const der of [pkcs8, sec1]) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const text = scrubSecrets(`decoding "${der.toString(encoding)}" failed`);
        expect(text).toBe(`decoding "${REDACTED}" failed`);
      }
    }
  });

  it('keeps base64 of certificates and other DER, which is public', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const spki = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(scrubSecrets(`spki ${spki}`)).toBe(`spki ${spki}`);
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

  it('applies to the readable lines of a terminal too', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    const logger = createLogger({ level: 'debug', service: 'test', destination, format: 'pretty' });
    logger.debug({ req: { headers: { authorization: `Bearer ${jwt}` } }, privateKeyPem: pem }, `key ${pem}`);
    logger.error({ err: new Error(`boom ${pem}`) }, 'failure');
    const all = lines.join('\n');
    expect(all).toContain('DEBUG');
    expect(all).not.toContain('{"level"');
    expect(all).not.toContain('MIGHAgEA');
    expect(all).not.toContain(jwt);
  });
});
