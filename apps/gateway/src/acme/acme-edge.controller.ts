import { All, Controller, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Request, Response } from 'express';
import { AcmeApi, AcmePattern, AcmeHttpResponse, parseAcmeHttpResponse, parseTenantId } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { Public } from '../auth/auth.decorators';
import { AuthenticatedPrincipal } from '../auth/authenticated-principal';
import { clientAddressOf } from '@ca/runtime';
import { AUDIT_READ_ONLY_LOCAL } from '../audit/audit.middleware';

export const ACME_RPC = Symbol('ACME_RPC');

/**
 * The HTTP edge of ACME (docs/api.md#acme): no bearer token (ACME requests carry their own JWS);
 * the request goes as it is to the acme context over the bus, and its answer comes back as it is.
 * Body size and text rules are the gateway's; rate limits, nonces and signatures are acme's.
 */
@ApiExcludeController()
@Public()
@Controller('acme/:tenantId')
export class AcmeEdgeController {
  constructor(@Inject(ACME_RPC) private readonly acme: RpcClient<AcmeApi>) {}

  @All('*path')
  async forward(
    @Param('tenantId') tenantId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const path = req.path.slice(`/acme/${tenantId}`.length) || '/';
    let answer: AcmeHttpResponse | undefined;
    try {
      answer = parseAcmeHttpResponse(
        await this.acme.send(AcmePattern.Http, {
          tenantId,
          method: req.method,
          path,
          contentType: req.headers['content-type'],
          body: rawBody(req).toString('base64'),
          clientAddress: clientAddressOf(req),
        }),
      );
    } catch {
      answer = undefined;
    }
    if (!answer) {
      res
        .status(503)
        .set({ 'content-type': 'application/problem+json', 'retry-after': '5' })
        .send(
          JSON.stringify({
            type: 'urn:ietf:params:acme:error:serverInternal',
            detail: 'the ACME service is not available; retry shortly',
            status: 503,
          }),
        );
      return;
    }
    // Reads (GET, HEAD, POST-as-GET) are not audited: they change nothing and come as often as a
    // client polls. The audit entry of any other request names the tenant (when the segment is a
    // tenant id at all) and the ACME account that signed it.
    if (answer.readOnly) res.locals[AUDIT_READ_ONLY_LOCAL] = true;
    const tenant = parseTenantId(tenantId);
    if (tenant) {
      (req as Request & { user?: AuthenticatedPrincipal }).user = {
        tenantId: tenant,
        subject: answer.principal ?? 'acme',
        scopes: [],
      };
    }
    res.status(answer.status).set(answer.headers).send(Buffer.from(answer.body, 'base64'));
  }
}

/** The gateway parses every body as JSON; a JWS is a JSON object, so its text is recovered exactly enough to verify. */
function rawBody(req: Request): Buffer {
  const body: unknown = req.body;
  if (body === undefined || body === null) return Buffer.alloc(0);
  return Buffer.from(JSON.stringify(body), 'utf8');
}
