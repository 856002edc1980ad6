import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { derToPem } from '@ca/pki';
import { Request, Response } from 'express';
import { answerConditionally } from '../http/conditional-get';
import { notFoundProblem } from '../http/not-found';
import { CaCertificateStore, ServedCaCertificate } from './ca-certificate.store';

/** A day: a CA certificate does not change; caches revalidate cheaply with the ETag. */
const CA_MAX_AGE_SECONDS = 86_400;

/**
 * CONTRACT section 6: the tenant CA certificate, as PEM (a trust root to install) and as DER
 * (the AIA caIssuers target, `application/pkix-cert`, RFC 5280 4.2.2.1). GET routes answer HEAD too.
 */
@Controller('v1/tenants/:tenantId')
export class CaCertificateController {
  constructor(private readonly store: CaCertificateStore) {}

  @Get('ca.pem')
  async pem(@Param('tenantId') tenantId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.serve(tenantId, req, res, 'application/x-pem-file', (ca) =>
      Buffer.from(derToPem(ca.der), 'ascii'),
    );
  }

  @Get('ca.crt')
  async der(@Param('tenantId') tenantId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.serve(tenantId, req, res, 'application/pkix-cert', (ca) => ca.der);
  }

  private async serve(
    tenantId: string,
    req: Request,
    res: Response,
    contentType: string,
    body: (ca: ServedCaCertificate) => Buffer,
  ): Promise<void> {
    const ca = await this.store.find(tenantId);
    if (!ca) return notFoundProblem(res, 'No certificate authority is published for this tenant.');
    // The two representations differ, so their validators must too (RFC 9110 8.8.3).
    const suffix = contentType === 'application/pkix-cert' ? 'der' : 'pem';
    const etag = `${ca.etag.slice(0, -1)}-${suffix}"`;
    if (
      answerConditionally(req, res, {
        etag,
        lastModified: ca.lastModified,
        maxAgeSeconds: CA_MAX_AGE_SECONDS,
      })
    )
      return;
    res.status(200).type(contentType).send(body(ca));
  }
}
