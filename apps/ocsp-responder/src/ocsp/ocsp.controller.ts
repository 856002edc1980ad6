import { Body, Controller, Get, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { buildOcspErrorResponse } from '@ca/pki';
import { Request, Response } from 'express';
import { answerConditionally } from '../http/conditional-get';
import { decodeOcspGetRequest } from './ocsp-get-request';
import { OcspAnswer, OcspResponder } from './ocsp.responder';

const OCSP_RESPONSE = 'application/ocsp-response';

/**
 * CONTRACT section 6 / RFC 6960 appendix A: OCSP over HTTP. Every OCSP outcome, errors included,
 * is an HTTP 200 with an OCSPResponse body (RFC 5019 2.1). GET answers are cacheable up to their
 * nextUpdate (RFC 5019 6).
 */
@Controller('v1/tenants/:tenantId/ocsp')
export class OcspController {
  private readonly logger = new Logger('OcspController');

  constructor(private readonly responder: OcspResponder) {}

  @Post()
  async post(
    @Param('tenantId') tenantId: string,
    @Body() body: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const request = Buffer.isBuffer(body) ? new Uint8Array(body) : new Uint8Array();
    const answer = await this.answerSafely(tenantId, request);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).type(OCSP_RESPONSE).send(answer.der);
  }

  @Get('*request')
  async get(
    @Param('tenantId') tenantId: string,
    @Param('request') request: string | string[],
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const der = decodeOcspGetRequest(request);
    const answer: OcspAnswer = der
      ? await this.answerSafely(tenantId, der)
      : { der: Buffer.from(buildOcspErrorResponse('malformedRequest')) };
    if (answer.cache) {
      const maxAgeSeconds = (answer.cache.nextUpdate.getTime() - Date.now()) / 1000;
      res.setHeader('Expires', answer.cache.nextUpdate.toUTCString());
      const { etag, thisUpdate } = answer.cache;
      if (answerConditionally(req, res, { etag, lastModified: thisUpdate, maxAgeSeconds })) return;
    } else {
      res.setHeader('Cache-Control', 'no-store');
    }
    res.status(200).type(OCSP_RESPONSE).send(answer.der);
  }

  /** Any failure is still an OCSP answer (internalError, RFC 6960 2.3), never an HTTP 500. */
  private async answerSafely(tenantId: string, request: Uint8Array): Promise<OcspAnswer> {
    try {
      return await this.responder.answer(tenantId, request);
    } catch (err) {
      this.logger.error({ err, tenantId }, 'OCSP answer failed');
      return { der: Buffer.from(buildOcspErrorResponse('internalError')) };
    }
  }
}
