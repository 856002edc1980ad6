import { JSONCodec, NatsConnection, connect } from 'nats';
import { SecuredNatsServer, ServiceName } from './secured-nats-server';

export type RequestOutcome = 'answered' | 'no-responders' | 'refused' | 'timeout';

/** A client holding `service`'s credentials (and its inbox prefix, as the service uses it). */
export function connectAs(nats: SecuredNatsServer, service: ServiceName): Promise<NatsConnection> {
  return connect({
    servers: nats.url,
    ...nats.credentials(service),
    inboxPrefix: `_INBOX.${service}`,
    reconnect: false,
    ...(nats.tls ? { tls: { caFile: nats.tls.caFile } } : {}),
  });
}

/** What became of a request: an answer, nobody listening (allowed), or a permissions violation. */
export async function requestOutcome(nc: NatsConnection, subject: string): Promise<RequestOutcome> {
  try {
    await nc.request(subject, JSONCodec().encode({ probe: true }), { timeout: 2_000 });
    return 'answered';
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '503') return 'no-responders';
    if (code === 'PERMISSIONS_VIOLATION') return 'refused';
    if (code === 'TIMEOUT') return 'timeout';
    throw error;
  }
}

/** Whether the server refuses `nc` a subscription to `subject` (in `queue`, when given). */
export async function subscriptionRefused(
  nc: NatsConnection,
  subject: string,
  queue?: string,
): Promise<boolean> {
  let refused = false;
  const sub = nc.subscribe(subject, {
    queue,
    callback: (error) => {
      if ((error as { code?: string } | null)?.code === 'PERMISSIONS_VIOLATION') refused = true;
    },
  });
  await nc.flush();
  // The -ERR arrives right behind the PONG; give it a moment on a busy machine.
  for (let i = 0; i < 10 && !refused; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!sub.isClosed()) sub.unsubscribe();
  return refused;
}

/** Whether a JetStream call was refused by permissions (as opposed to succeeding or failing otherwise). */
export async function jetStreamRefused(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === 'PERMISSIONS_VIOLATION') return true;
    throw error;
  }
}
