import { Authenticator, nkeys } from 'nats';
import { natsConnectionOptions } from './messaging';

describe('natsConnectionOptions', () => {
  it('connects as NATS_URL says when no user is given', () => {
    const options = natsConnectionOptions('nats://a:4222, nats://b:4222', {});
    expect(options).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
  });

  it("carries the service's user, inbox prefix and TLS trust to every connection", () => {
    const options = natsConnectionOptions('tls://nats:4222', {
      user: 'revocation',
      pass: 'pw',
      inboxPrefix: '_INBOX.revocation',
      tlsCaFile: '/etc/ca/nats-ca.pem',
    });
    expect(options).toMatchObject({
      servers: ['tls://nats:4222'],
      user: 'revocation',
      pass: 'pw',
      inboxPrefix: '_INBOX.revocation',
      tls: { caFile: '/etc/ca/nats-ca.pem' },
    });
  });

  it('signs in with the NKey seed instead of a password when one is given', () => {
    const seed = new TextDecoder().decode(nkeys.createUser().getSeed());
    const options = natsConnectionOptions('nats://nats:4222', { nkeySeed: seed, user: 'x', pass: 'y' });
    expect(options.authenticator).toEqual(expect.any(Function));
    expect(options).not.toHaveProperty('user');
    expect(options).not.toHaveProperty('pass');
    // The seed is not sent: the authenticator answers the server's nonce with a signature.
    const authenticator = options.authenticator as Authenticator;
    const answer = authenticator('nonce-from-server');
    expect(JSON.stringify(answer)).not.toContain(seed);
    expect(answer).toMatchObject({ nkey: expect.stringMatching(/^U/), sig: expect.any(String) });
  });
});
