import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { CaError, RpcReply } from '@ca/contracts';
import { Observable, catchError, map, of } from 'rxjs';

/**
 * Turns every message handler's outcome into an RpcReply: a value, or a CaError as plain data.
 * Unexpected errors are logged here, in the service that failed, and cross as INTERNAL_ERROR
 * without their message (which might name internals).
 */
@Injectable()
export class RpcReplyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Rpc');

  intercept(context: ExecutionContext, next: CallHandler): Observable<RpcReply<unknown>> {
    return next.handle().pipe(
      map((value: unknown): RpcReply<unknown> => ({ ok: true, value })),
      catchError((error: unknown) => {
        if (!(error instanceof CaError)) {
          this.logger.error({ err: error, pattern: context.getHandler().name }, 'request handler failed');
        }
        return of<RpcReply<unknown>>({ ok: false, error: CaError.fromWire(error).toShape() });
      }),
    );
  }
}
