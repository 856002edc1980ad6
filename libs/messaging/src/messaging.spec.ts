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
});
