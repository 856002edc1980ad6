import { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '@ca/persistence';
import { buildOcspErrorResponse } from '@ca/pki';
import { isNotModified } from '../http/conditional-get';
import { NOT_STORED, lastModifiedOf, ocspCacheHeaders } from '../http/ocsp-cache-headers';
import { SimpleOcspRequest } from '../http/ocsp-request-head';
import { sendBody } from '../http/send-body';
import { decodeOcspGetRequest } from './ocsp-get-request';
import { OcspAnswer, OcspOverloadedError, OcspResponder } from './ocsp.responder';

const OCSP_RESPONSE = 'application/ocsp-response';
/** OCSP requests are a few hundred bytes; anything far larger is refused without reading it all. */
export const OCSP_REQUEST_LIMIT_BYTES = 64 * 1024;

const MALFORMED = Buffer.from(buildOcspErrorResponse('malformedRequest'));
const INTERNAL_ERROR = Buffer.from(buildOcspErrorResponse('internalError'));
const TRY_LATER = Buffer.from(buildOcspErrorResponse('tryLater'));
/** Shedding load: a signing slot frees within milliseconds. */
const OVERLOADED_RETRY_AFTER_SECONDS = 1;
/** Database unreachable: a restart or failover takes seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The full path could not answer now: HTTP 503 with Retry-After and a `tryLater` OCSP answer. */
interface Unavailable {
  retryAfterSeconds: number;
}

/**
 * OCSP over HTTP (RFC 6960 appendix A, RFC 5019). Every OCSP outcome, errors included, is an HTTP
 * 200 with an OCSPResponse body (RFC 5019 2.1); caching headers as `ocspCacheHeaders` says, the
 * same on POST and GET, with 304s to conditional GETs. Only a database that cannot be reached or
 * refuses the responder, or too many answers being signed at once, make it an HTTP 503 with
 * `Retry-After`, whose body is still an OCSPResponse: `tryLater` (RFC 6960 2.3, 4.2.1), for a
 * client that reads the body whatever the status. Answers in memory are served meanwhile.
 */
export class OcspHttp {
  private readonly logger = new Logger('OcspHttp');

  constructor(private readonly responder: OcspResponder) {}

  /** POST {url}: the DER request is the body, whatever its Content-Type. */
  post(tenantId: string, req: IncomingMessage, res: ServerResponse): void {
    const announced = Number(req.headers['content-length'] ?? 0);
    if (announced > OCSP_REQUEST_LIMIT_BYTES) return this.refuseTooLarge(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('error', () => undefined); // a client gone mid-body: nothing to answer
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > OCSP_REQUEST_LIMIT_BYTES) this.refuseTooLarge(req, res);
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const fast = this.fromMemory(tenantId, body);
      if (fast) return this.send(req, res, fast);
      // answerSafely never rejects; writing the answer can (a socket torn down meanwhile).
      this.answerSafely(tenantId, body)
        .then((answer) => this.send(req, res, answer))
        .catch((err: unknown) => {
          this.logger.warn({ err, tenantId }, 'OCSP answer could not be written');
          res.destroy();
        });
    });
  }

  /** GET {url}/{base64 request} (RFC 6960 A.1); `encoded` is the rest of the path, not yet %-decoded. */
  async get(tenantId: string, encoded: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const der = decodeOcspGetRequest(percentDecoded(encoded) ?? '');
    const answer: OcspAnswer | Unavailable = !der
      ? { der: MALFORMED }
      : (this.fromMemory(tenantId, der) ?? (await this.answerSafely(tenantId, der)));
    this.send(req, res, answer);
  }

  /** Headers in `ocspCacheHeaders` order, then the body; a 304 to a GET whose copy is current. */
  private send(req: IncomingMessage, res: ServerResponse, answer: OcspAnswer | Unavailable): void {
    if (res.headersSent) return;
    if (!('der' in answer)) return tryLater(res, answer.retryAfterSeconds);
    for (const [name, value] of ocspCacheHeaders(answer, Date.now())) res.setHeader(name, value);
    if (
      answer.cache &&
      req.method !== 'POST' &&
      isNotModified(req, answer.cache.etag, lastModifiedOf(answer.cache.thisUpdate))
    ) {
      res.statusCode = 304;
      res.end();
      return;
    }
    sendBody(res, 200, OCSP_RESPONSE, answer.der);
  }

  /**
   * The answer to a simple request (see the fast front) when it is in memory, as `post` and `get`
   * would give it; undefined sends the request down those paths.
   */
  simpleFromMemory(request: SimpleOcspRequest): OcspAnswer | undefined {
    if (request.body) return this.fromMemory(request.tenantId, request.body);
    const der = decodeOcspGetRequest(percentDecoded(request.encoded ?? '') ?? '');
    return der && this.fromMemory(request.tenantId, der);
  }

  /** The answer without any I/O when it is in memory; a failure here falls back to the full path. */
  private fromMemory(tenantId: string, request: Uint8Array): OcspAnswer | undefined {
    try {
      return this.responder.answerFromMemory(tenantId, request);
    } catch {
      return undefined;
    }
  }

  /**
   * Any failure is still an OCSP answer (internalError, RFC 6960 2.3), never an HTTP 500; an
   * unreachable database or too many signings in flight are a 503 the client retries.
   */
  private async answerSafely(tenantId: string, request: Uint8Array): Promise<OcspAnswer | Unavailable> {
    try {
      return await this.responder.answer(tenantId, request);
    } catch (err) {
      if (err instanceof OcspOverloadedError) {
        return { retryAfterSeconds: OVERLOADED_RETRY_AFTER_SECONDS };
      }
      if (isDatabaseUnavailable(err)) {
        this.logger.warn({ err, tenantId }, 'OCSP answer: database unavailable');
        return { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS };
      }
      this.logger.error({ err, tenantId }, 'OCSP answer failed');
      return { der: INTERNAL_ERROR };
    }
  }

  /** A body over the limit is not an OCSP request: malformedRequest, and the connection is closed. */
  private refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent) return;
    res.setHeader('Cache-Control', NOT_STORED);
    res.setHeader('Connection', 'close');
    sendBody(res, 200, OCSP_RESPONSE, MALFORMED);
    req.resume();
  }
}

/** 503 with Retry-After (RFC 9110 15.6.4), the body a `tryLater` OCSPResponse; never stored. */
function tryLater(res: ServerResponse, retryAfterSeconds: number): void {
  if (res.headersSent) return void res.destroy();
  res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('Cache-Control', NOT_STORED);
  sendBody(res, 503, OCSP_RESPONSE, TRY_LATER);
}

/** The path's %-escapes decoded (a `%2F` becomes `/`, as a raw `/` is), or undefined if invalid. */
function percentDecoded(path: string): string | undefined {
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}
