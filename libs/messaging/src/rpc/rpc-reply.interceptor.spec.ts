import { CallHandler, ExecutionContext, Logger } from '@nestjs/common';
import { ErrorCode, RpcReply } from '@ca/contracts';
import { firstValueFrom, throwError } from 'rxjs';
import { RpcReplyInterceptor } from './rpc-reply.interceptor';

const context = { getHandler: () => ({ name: 'handler' }) } as unknown as ExecutionContext;

function replyTo(error: unknown): Promise<RpcReply<unknown>> {
  const handler: CallHandler = { handle: () => throwError(() => error) };
  return firstValueFrom(new RpcReplyInterceptor().intercept(context, handler));
}

describe('RpcReplyInterceptor', () => {
  beforeAll(() => Logger.overrideLogger(false)); // the failures it logs are expected here

  it('turns a database that is away into SERVICE_UNAVAILABLE (a 503 to retry), not INTERNAL_ERROR', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(await replyTo(refused)).toEqual({
      ok: false,
      error: expect.objectContaining({ code: ErrorCode.ServiceUnavailable }),
    });
  });

  it('keeps other unexpected errors internal, without their message', async () => {
    const reply = await replyTo(new Error('column "x" does not exist'));
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: ErrorCode.Internal }) });
    expect(JSON.stringify(reply)).not.toContain('column');
  });
});
