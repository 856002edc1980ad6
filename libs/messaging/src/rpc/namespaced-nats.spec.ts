import { JSONCodec } from 'nats';
import { NamespacedServerNats } from './namespaced-nats';

/** A NATS message as the server hands it to the handler, with the answer it would publish. */
function natsMessage(reply: string | undefined) {
  const answers: unknown[] = [];
  return {
    answers,
    message: {
      subject: 'issuance.certificate.revoke',
      reply,
      headers: undefined,
      data: JSONCodec().encode({ pattern: 'issuance.certificate.revoke', data: { forged: true }, id: 'x1' }),
      respond: (data: Uint8Array) => answers.push(JSONCodec().decode(data)),
    },
  };
}

describe('NamespacedServerNats', () => {
  const handled: unknown[] = [];
  const server = new NamespacedServerNats({ queue: 'issuance' }, '');
  server.addHandler('issuance.certificate.revoke', async (data: unknown) => {
    handled.push(data);
    return { ok: true };
  });
  beforeEach(() => (handled.length = 0));

  it('answers a request that carries a reply inbox', async () => {
    const { message, answers } = natsMessage('_INBOX.gateway.abc.1');
    await server.handleMessage('issuance.certificate.revoke', message);
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual([{ forged: true }]);
    expect(answers).toHaveLength(1);
  });

  it.each([
    ['no reply subject (a push consumer without acks)', undefined],
    ['an acknowledgement subject (a push consumer with acks)', '$JS.ACK.CA_EVENTS.revocation.1.2.3.4.0'],
  ])('drops, unhandled, a message with %s', async (_, reply) => {
    const { message, answers } = natsMessage(reply);
    await server.handleMessage('issuance.certificate.revoke', message);
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual([]);
    expect(answers).toEqual([]);
  });
});

describe('NamespacedServerNats close', () => {
  /** A server with a handler that answers after `ms` (never, if undefined) and a stand-in connection. */
  function serverWith(ms: number | undefined, gracePeriod = 2_000) {
    const server = new NamespacedServerNats({ queue: 'issuance', gracePeriod }, '');
    server.addHandler('issuance.certificate.revoke', () =>
      ms === undefined
        ? new Promise(() => undefined)
        : new Promise((r) => setTimeout(() => r({ ok: true }), ms)),
    );
    const connection = {
      closedAt: 0,
      flush: async () => undefined,
      close: async () => void (connection.closedAt = Date.now()),
    };
    const subscription = { unsubscribed: false, unsubscribe: () => void (subscription.unsubscribed = true) };
    Object.assign(server, { natsClient: connection, subscriptions: [subscription] });
    return { server, connection, subscription };
  }

  it('lets a request in flight answer, then closes as soon as it has', async () => {
    const { server, connection, subscription } = serverWith(300);
    const { message, answers } = natsMessage('_INBOX.gateway.abc.1');
    const handling = server.handleMessage('issuance.certificate.revoke', message);
    const started = Date.now();
    await server.close();
    await handling;
    expect(subscription.unsubscribed).toBe(true);
    expect(answers).toHaveLength(1);
    expect(connection.closedAt - started).toBeGreaterThanOrEqual(250);
    // Not Nest's fixed 2 s grace period.
    expect(connection.closedAt - started).toBeLessThan(1_500);
  });

  it('closes at once when nothing is in flight', async () => {
    const { server, connection } = serverWith(300);
    const started = Date.now();
    await server.close();
    expect(connection.closedAt - started).toBeLessThan(200);
  });

  it('closes at the grace period when a handler never finishes', async () => {
    const { server, connection } = serverWith(undefined, 300);
    void server.handleMessage('issuance.certificate.revoke', natsMessage('_INBOX.gateway.abc.2').message);
    const started = Date.now();
    await server.close();
    expect(connection.closedAt - started).toBeGreaterThanOrEqual(250);
    expect(connection.closedAt - started).toBeLessThan(1_500);
  });
});
