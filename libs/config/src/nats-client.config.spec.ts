import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { loadNatsClientSettings, natsPasswordVariable } from './nats-client.config';

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
});
