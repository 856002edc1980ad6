import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import {
  loadNatsClientSettings,
  makeNatsServiceKeys,
  natsNkeyPublicVariable,
  natsNkeySeedVariables,
  natsPasswordVariable,
} from './nats-client.config';

describe('loadNatsClientSettings', () => {
  it('names the password variable after the app: upper case, - as _', () => {
    expect(natsPasswordVariable('gateway')).toBe('NATS_PASSWORD_GATEWAY');
    expect(natsPasswordVariable('ocsp-responder')).toBe('NATS_PASSWORD_OCSP_RESPONDER');
    expect(natsPasswordVariable('acme')).toBe('NATS_PASSWORD_ACME');
  });

  it("connects as the app's own user when its password is set, with its own inbox prefix", () => {
    expect(loadNatsClientSettings('ocsp-responder', { NATS_PASSWORD_OCSP_RESPONDER: 's3cret' })).toEqual({
      user: 'ocsp-responder',
      pass: 's3cret',
      inboxPrefix: '_INBOX.ocsp-responder',
    });
  });

  it('leaves the identity to NATS_URL when the variable is unset or another app has one', () => {
    expect(
      loadNatsClientSettings('gateway', { NATS_PASSWORD_ISSUANCE: 'x', NATS_PASSWORD_GATEWAY: ' ' }),
    ).toEqual({
      inboxPrefix: '_INBOX.gateway',
    });
  });

  it('takes NATS_TLS_CA_FILE when it can be read, and names it when it cannot', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'nats-ca-')), 'ca.pem');
    writeFileSync(file, '-----BEGIN CERTIFICATE-----\n');
    expect(loadNatsClientSettings('issuance', { NATS_TLS_CA_FILE: file }).tlsCaFile).toBe(file);
    const missing = () => loadNatsClientSettings('issuance', { NATS_TLS_CA_FILE: `${file}.missing` });
    expect(missing).toThrow(ConfigError);
    expect(missing).toThrow(/^NATS_TLS_CA_FILE: cannot read /);
  });

  it('names the NKey variables after the app as the password variable', () => {
    expect(natsNkeySeedVariables('ocsp-responder')).toEqual({
      seed: 'NATS_NKEY_SEED_OCSP_RESPONDER',
      file: 'NATS_NKEY_SEED_FILE_OCSP_RESPONDER',
    });
    expect(natsNkeyPublicVariable('ocsp-responder')).toBe('NATS_NKEY_OCSP_RESPONDER');
  });

  it('signs in with its NKey seed, from the variable or a file, in place of its password', () => {
    const [key] = makeNatsServiceKeys(['revocation']);
    expect(key.publicKey).toMatch(/^U[A-Z2-7]{55}$/);
    expect(key.seed).toMatch(/^SU[A-Z2-7]{56}$/);
    expect(
      loadNatsClientSettings('revocation', {
        NATS_NKEY_SEED_REVOCATION: key.seed,
        NATS_PASSWORD_REVOCATION: 'pw',
      }),
    ).toEqual({ nkeySeed: key.seed, inboxPrefix: '_INBOX.revocation' });
    const file = join(mkdtempSync(join(tmpdir(), 'nats-seed-')), 'revocation.nk');
    writeFileSync(file, `${key.seed}\n`, { mode: 0o600 });
    expect(loadNatsClientSettings('revocation', { NATS_NKEY_SEED_FILE_REVOCATION: file }).nkeySeed).toBe(
      key.seed,
    );
  });

  it('refuses a seed that is not an NKey user seed, a missing seed file, or both forms at once, never echoing the seed', () => {
    const [key] = makeNatsServiceKeys(['gateway']);
    // One character of the key changed (its checksum then fails); not the last one, whose low bits
    // are padding: changing only those decodes to the same seed.
    const at = 20;
    const broken = `${key.seed.slice(0, at)}${key.seed[at] === 'A' ? 'B' : 'A'}${key.seed.slice(at + 1)}`;
    for (const seed of [broken, key.publicKey, 'SUNOTASEED', 'p0123456789']) {
      const load = () => loadNatsClientSettings('gateway', { NATS_NKEY_SEED_GATEWAY: seed });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/^NATS_NKEY_SEED_GATEWAY: is not an NKey user seed/);
      expect(() => load()).not.toThrow(seed);
    }
    expect(() =>
      loadNatsClientSettings('gateway', { NATS_NKEY_SEED_FILE_GATEWAY: '/nonexistent/gateway.nk' }),
    ).toThrow(/^NATS_NKEY_SEED_FILE_GATEWAY: cannot read /);
    expect(() =>
      loadNatsClientSettings('gateway', {
        NATS_NKEY_SEED_GATEWAY: key.seed,
        NATS_NKEY_SEED_FILE_GATEWAY: '/x',
      }),
    ).toThrow(/^NATS_NKEY_SEED_GATEWAY: set either/);
  });

  it('makes a different key pair for every service', () => {
    const keys = makeNatsServiceKeys();
    expect(keys.map((k) => k.app)).toEqual([
      'gateway',
      'issuance',
      'revocation',
      'ocsp-responder',
      'acme',
      'webhooks',
    ]);
    expect(new Set(keys.map((k) => k.seed)).size).toBe(keys.length);
  });
});
