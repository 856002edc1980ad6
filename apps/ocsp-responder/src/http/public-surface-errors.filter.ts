import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { buildOcspErrorResponse } from '@ca/pki';
import { Request, Response } from 'express';

const OCSP_PATH = /^\/v1\/tenants\/[^/]+\/ocsp(\/|$)/;

/**
 * Errors raised before a handler runs (a body too large, an undecodable encoding or path):
 * on an OCSP path the client still gets an OCSP answer, `malformedRequest` (RFC 6960 2.3), never
 * a JSON error; elsewhere Nest's usual JSON body with the same status.
 */
@Catch()
export class PublicSurfaceErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('PublicSurface');

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    const status = statusOf(exception);
    if (OCSP_PATH.test(req.path) && status < 500) {
      res.setHeader('Cache-Control', 'no-store');
      res
        .status(200)
        .type('application/ocsp-response')
        .send(Buffer.from(buildOcspErrorResponse('malformedRequest')));
      return;
    }
    if (status >= 500) this.logger.error({ err: exception, path: req.path }, 'request failed');
    const body =
      exception instanceof HttpException ? exception.getResponse() : { statusCode: status, message: 'Error' };
    res
      .status(status)
      .type('application/json')
      .send(typeof body === 'string' ? { statusCode: status, message: body } : body);
  }
}

function statusOf(exception: unknown): number {
  if (exception instanceof HttpException) return exception.getStatus();
  const status =
    (exception as { status?: unknown; statusCode?: unknown })?.status ??
    (exception as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}
