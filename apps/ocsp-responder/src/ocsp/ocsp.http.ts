import { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { buildOcspErrorResponse } from '@ca/pki';
import { answerConditionally } from '../http/conditional-get';
import { SimpleOcspRequest } from '../http/ocsp-request-head';
import { sendBody } from '../http/send-body';
import { decodeOcspGetRequest } from './ocsp-get-request';
import { OcspAnswer, OcspResponder } from './ocsp.responder';

const OCSP_RESPONSE = 'application/ocsp-response';
/** OCSP requests are a few hundred bytes; anything far larger is refused without reading it all. */
export const OCSP_REQUEST_LIMIT_BYTES = 64 * 1024;

const MALFORMED = Buffer.from(buildOcspErrorResponse('malformedRequest'));
const INTERNAL_ERROR = Buffer.from(buildOcspErrorResponse('internalError'));

/**
 * CONTRACT section 6 / RFC 6960 appendix A: OCSP over HTTP. Every OCSP outcome, errors included,
 * is an HTTP 200 with an OCSPResponse body (RFC 5019 2.1). POST answers are `no-store`; GET
 * answers are cacheable up to their nextUpdate (RFC 5019 6), with validators and 304s.
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
      if (fast) return this.sendPost(res, fast);
      void this.answerSafely(tenantId, body).then((answer) => this.sendPost(res, answer));
    });
  }

  private sendPost(res: ServerResponse, answer: OcspAnswer): void {
    res.setHeader('Cache-Control', 'no-store');
    sendBody(res, 200, OCSP_RESPONSE, answer.der);
  }

  /** GET {url}/{base64 request} (RFC 6960 A.1); `encoded` is the rest of the path, not yet %-decoded. */
  async get(tenantId: string, encoded: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const der = decodeOcspGetRequest(percentDecoded(encoded) ?? '');
    const answer: OcspAnswer = !der
      ? { der: MALFORMED }
      : (this.fromMemory(tenantId, der) ?? (await this.answerSafely(tenantId, der)));
    if (answer.cache) {
      const maxAgeSeconds = (answer.cache.nextUpdate.getTime() - Date.now()) / 1000;
      res.setHeader('Expires', answer.cache.nextUpdate.toUTCString());
      const { etag, thisUpdate } = answer.cache;
      if (answerConditionally(req, res, { etag, lastModified: thisUpdate, maxAgeSeconds })) return;
    } else {
      res.setHeader('Cache-Control', 'no-store');
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

  /** Any failure is still an OCSP answer (internalError, RFC 6960 2.3), never an HTTP 500. */
  private async answerSafely(tenantId: string, request: Uint8Array): Promise<OcspAnswer> {
    try {
      return await this.responder.answer(tenantId, request);
    } catch (err) {
      this.logger.error({ err, tenantId }, 'OCSP answer failed');
      return { der: INTERNAL_ERROR };
    }
  }

  /** A body over the limit is not an OCSP request: malformedRequest, and the connection is closed. */
  private refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent) return;
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'close');
    sendBody(res, 200, OCSP_RESPONSE, MALFORMED);
    req.resume();
  }
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
