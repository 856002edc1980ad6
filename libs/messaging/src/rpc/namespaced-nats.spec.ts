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
