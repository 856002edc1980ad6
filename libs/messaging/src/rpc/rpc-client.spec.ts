import { ClientProxy } from '@nestjs/microservices';
import { CaError, ErrorCode } from '@ca/contracts';
import { of, throwError, delay } from 'rxjs';
import { RpcClient } from './rpc-client';

/** A proxy whose every request fails the way a transport fails. */
const failingProxy = (error: unknown) => ({ send: () => throwError(() => error) }) as unknown as ClientProxy;

async function codeOf(error: unknown): Promise<string> {
  const client = new RpcClient<{ 'x.y': [object, object] }>(failingProxy(error), 1_000);
  const failure: unknown = await client.send('x.y', {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(failure instanceof CaError)) throw new Error(`not a CaError: ${String(failure)}`);
  return failure.code;
}

describe('RpcClient transport failures', () => {
  it('answers SERVICE_UNAVAILABLE when the NATS connection is lost mid-request (Nest sends a plain string)', async () => {
    expect(await codeOf('Error: Connection lost. Trying to reconnect...')).toBe(ErrorCode.ServiceUnavailable);
  });

  it('answers SERVICE_UNAVAILABLE when nobody listens', async () => {
    expect(
      await codeOf(new Error('Empty response. There are no subscribers listening to that message ("a.b")')),
    ).toBe(ErrorCode.ServiceUnavailable);
  });

  it('keeps anything else internal', async () => {
    expect(await codeOf(new Error('something unexpected'))).toBe(ErrorCode.Internal);
  });
});

describe('RpcClient wait', () => {
  /** A proxy that answers after `ms`, as a service busy generating an RSA key would. */
  const slowProxy = (ms: number) =>
    ({ send: () => of({ ok: true, value: { done: true } }).pipe(delay(ms)) }) as unknown as ClientProxy;

  it('gives up after its own wait, and a request given a longer one gets its answer', async () => {
    const client = new RpcClient<{ 'x.y': [object, { done: boolean }] }>(slowProxy(150), 50);
    await expect(client.send('x.y', {})).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable });
    await expect(client.send('x.y', {}, { timeoutMs: 1_000 })).resolves.toEqual({ done: true });
  });
});
