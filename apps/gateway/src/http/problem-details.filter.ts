import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { CaError, ErrorCode } from '@ca/contracts';
import { PROBLEM_CONTENT_TYPE, toProblemDocument } from '@ca/problem';
import { Request, Response } from 'express';
import { auditResourceOf } from '../audit/audit-action';
import { AUDIT_CODE_LOCAL } from '../audit/audit.middleware';
import { RequestWithId } from './request-id';

/**
 * The one place errors become HTTP answers: CaErrors and framework errors as Problem Details
 * (docs/api.md#errors, RFC 9457), unknown routes as plain JSON 404 (docs/api.md#status-codes), anything unexpected as a
 * 500 problem that names the request id and nothing internal.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetails');

  constructor(private readonly catalogUrl: string) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (res.headersSent) return;

    if (
      exception instanceof NotFoundException &&
      !(exception.getResponse() as { problem?: boolean }).problem
    ) {
      res.status(404).type('application/json').json(exception.getResponse());
      return;
    }
    const error = this.toCaError(exception);
    const requestId = (req as RequestWithId).requestId ?? 'unknown';
    const problem = toProblemDocument(error, { catalogUrl: this.catalogUrl, requestId, instance: req.path });
    if (problem.status === 401) res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
    // RFC 9110 10.2.3: a 503 says when to come back (a backing service or the distribution side away).
    if (problem.status === 503 && !res.getHeader('Retry-After')) res.setHeader('Retry-After', '2');
    if (problem.status >= 500) {
      // auditResourceOf: a download token in the path is a credential, never logged.
      this.logger.error({ err: exception, requestId, path: auditResourceOf(req.path) }, 'request failed');
    }
    res.locals[AUDIT_CODE_LOCAL] = problem.code;
    res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
  }

  private toCaError(exception: unknown): CaError {
    if (exception instanceof CaError) return exception;
    const bodyParserError = fromBodyParser(exception);
    if (bodyParserError) return bodyParserError;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === HttpStatus.PAYLOAD_TOO_LARGE)
        return new CaError(ErrorCode.PayloadTooLarge, 'The request body is too large.');
      if (status === HttpStatus.BAD_REQUEST) {
        // body-parser's failures (malformed JSON, bad encoding) arrive here as 400s.
        return CaError.validation(
          [{ field: 'body', message: 'the request body is not valid JSON' }],
          'The request body could not be read.',
        );
      }
      if (status === HttpStatus.UNSUPPORTED_MEDIA_TYPE) {
        return CaError.validation([{ field: 'body', message: 'send the body as application/json' }]);
      }
      if (status === HttpStatus.UNAUTHORIZED)
        return new CaError(ErrorCode.InvalidToken, 'A valid bearer token is required.');
      if (status === HttpStatus.FORBIDDEN)
        return new CaError(ErrorCode.Forbidden, 'Access to this resource is forbidden.');
    }
    return new CaError(ErrorCode.Internal, 'An unexpected error occurred.');
  }
}

/** body-parser's own errors (http-errors with a `type`) reach the filter as plain errors. */
function fromBodyParser(exception: unknown): CaError | undefined {
  const error = exception as { type?: unknown; status?: unknown } | undefined;
  if (typeof error?.type !== 'string' || typeof error.status !== 'number') return undefined;
  if (error.type === 'entity.too.large')
    return new CaError(ErrorCode.PayloadTooLarge, 'The request body is too large.');
  if (error.type === 'encoding.invalid')
    return CaError.validation([{ field: 'body', message: 'the request body is not valid UTF-8' }]);
  if (error.status === 415 || error.type === 'charset.unsupported' || error.type === 'encoding.unsupported') {
    return CaError.validation([{ field: 'body', message: 'send the body as UTF-8 application/json' }]);
  }
  if (error.status >= 400 && error.status < 500) {
    return CaError.validation(
      [{ field: 'body', message: 'the request body is not valid JSON' }],
      'The request body could not be read.',
    );
  }
  return undefined;
}
