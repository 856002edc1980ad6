import { CaError, ErrorCode } from '@ca/contracts';
import { SealedSecret, createSealRecipient } from '@ca/custody';

/**
 * A secret another context makes and keeps (an EAB HMAC key, a webhook signing secret), shown to
 * the caller once: the request gets a fresh X25519 key, `ask` sends its public half, the context
 * seals the secret to it, and only this process can open it, so it never crosses the bus in clear.
 * A reply that does not open is a 500 naming `what`, never the reply.
 */
export async function relaySealedSecret<R>(
  what: string,
  ask: (recipientPublicKey: string) => Promise<R>,
  sealedOf: (reply: R) => SealedSecret,
): Promise<{ reply: R; secret: string }> {
  const recipient = createSealRecipient();
  const reply = await ask(recipient.publicKey);
  try {
    return { reply, secret: recipient.open(sealedOf(reply)).toString('utf8') };
  } catch {
    throw new CaError(ErrorCode.Internal, `The ${what} could not be delivered.`);
  }
}
