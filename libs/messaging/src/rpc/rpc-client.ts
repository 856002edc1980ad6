import { ClientProxy } from '@nestjs/microservices';
import { CaError, ErrorCode, RpcReply } from '@ca/contracts';
import { TimeoutError, firstValueFrom, timeout } from 'rxjs';
import { BlobStore } from '../blobs/blob-store';
import { decodeMessage } from './binary-reply';
import { NO_RESPONDERS } from './in-process.client';
import { withRpcHeaders } from './rpc-headers';

/** A map from pattern to [request, response] types, declared once per context in libs/contracts. */
export type RpcApi = Record<string, [unknown, unknown]>;

export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

/**
 * Typed request/reply over whichever ClientProxy the process uses (NATS or in-process).
 * Every failure surfaces as a CaError: the remote service's own, or SERVICE_UNAVAILABLE when
 * nobody answered in time.
 */
export class RpcClient<Api extends RpcApi> {
  constructor(
    private readonly proxy: ClientProxy,
    private readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
    private readonly blobs?: BlobStore,
  ) {}

  private async fetchLargeReply<T>(ref: string): Promise<T> {
    const stored = await this.blobs?.get(ref);
    if (!stored)
      throw new CaError(ErrorCode.ServiceUnavailable, 'The answer could not be retrieved; retry shortly.');
    await this.blobs?.delete(ref);
    const decoded = decodeMessage(stored);
    if ('error' in decoded) throw CaError.fromWire(decoded.error);
    return decoded.message as T;
  }

  /** `timeoutMs` overrides the client's wait for a request known to take longer (key generation). */
  async send<P extends keyof Api & string>(
    pattern: P,
    payload: Api[P][0],
    options: { timeoutMs?: number } = {},
  ): Promise<Api[P][1]> {
    let reply: RpcReply<Api[P][1]>;
    // The caller's trace context and request id travel as message headers to the handler.
    const request = withRpcHeaders(pattern, payload);
    try {
      reply = await firstValueFrom(
        this.proxy
          .send<RpcReply<Api[P][1]>>(pattern, request.record)
          .pipe(timeout(options.timeoutMs ?? this.timeoutMs)),
      );
      request.end(reply?.ok === false ? reply.error : undefined);
    } catch (error) {
      request.end(error);
      throw toTransportError(error);
    }
    if (reply?.ok === true && 'blobRef' in reply) return this.fetchLargeReply(reply.blobRef);
    if (reply?.ok === true) return reply.value;
    throw CaError.fromWire(reply?.error);
  }

  close(): Promise<void> | void {
    return this.proxy.close();
  }
}

function toTransportError(error: unknown): CaError {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  if (
    error instanceof TimeoutError ||
    error === NO_RESPONDERS ||
    /no responders|no subscribers|503|TIMEOUT|CONNECTION_CLOSED|DISCONNECT|Connection lost/i.test(text)
  ) {
    return new CaError(
      ErrorCode.ServiceUnavailable,
      'A backing service is not available right now; retry shortly.',
    );
  }
  return CaError.fromWire(error);
}
