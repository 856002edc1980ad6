import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { CaError, ErrorCode, RpcReply } from '@ca/contracts';
import { isDatabaseUnavailable } from '@ca/persistence';
import { Observable, catchError, from, mergeMap, of } from 'rxjs';
import { BlobStore } from '../blobs/blob-store';
import { encodeMessage, replyBytes } from './binary-reply';

/** NATS refuses messages over 1 MiB by default; larger replies travel through the BlobStore. */
export const MAX_INLINE_REPLY_BYTES = 768 * 1024;

/**
 * Turns every message handler's outcome into an RpcReply: a value, or a CaError as plain data.
 * Unexpected errors are logged here, in the service that failed, and cross as INTERNAL_ERROR
 * without their message (which might name internals).
 */
@Injectable()
export class RpcReplyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Rpc');

  constructor(private readonly blobs?: BlobStore) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<RpcReply<unknown>> {
    return next.handle().pipe(
      mergeMap((value: unknown) => from(this.reply(value))),
      catchError((error: unknown) => {
        if (isDatabaseUnavailable(error)) {
          // The service's database is away (restarting, say): a 503 the caller may retry, not a 500.
          this.logger.warn({ err: error, pattern: context.getHandler().name }, 'database unavailable');
          const unavailable = new CaError(
            ErrorCode.ServiceUnavailable,
            'A backing service is not available right now; retry shortly.',
          );
          return of<RpcReply<unknown>>({ ok: false, error: unavailable.toShape() });
        }
        if (!(error instanceof CaError)) {
          this.logger.error({ err: error, pattern: context.getHandler().name }, 'request handler failed');
        }
        return of<RpcReply<unknown>>({ ok: false, error: CaError.fromWire(error).toShape() });
      }),
    );
  }

  /** A large value (a list of 100,000 certificates) is handed over by reference, not inline. */
  private async reply(value: unknown): Promise<RpcReply<unknown>> {
    if (!this.blobs || value === undefined) return { ok: true, value };
    // Measured, not copied: most replies go inline. Byte fields (an export chunk's rows) count as
    // their length, and travel as bytes in the blob too (binary-reply.ts).
    if (replyBytes(value) <= MAX_INLINE_REPLY_BYTES) return { ok: true, value };
    return { ok: true, blobRef: await this.blobs.put(encodeMessage(value)) };
  }
}
