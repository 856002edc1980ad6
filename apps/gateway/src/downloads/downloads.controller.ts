import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Request, Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { DownloadLinks } from './download-links';
import { unavailableAs503 } from './unavailable-as-503';

/**
 * docs/api.md#downloads, pre-signed downloads: `GET /v1/downloads/{token}` without a bearer token.
 * The token is the credential; it is never logged or audited (audit-action.ts writes `{token}`).
 */
@ApiTags('Downloads')
@Controller('v1/downloads')
export class DownloadsController {
  constructor(private readonly links: DownloadLinks) {}

  @Get(':token')
  @Public()
  @ApiOperation({
    summary: 'Download a file of a File-format issuance or renewal (pre-signed link, no bearer token)',
    description:
      'Links are valid one hour. The certificate link works until then; the private key and PKCS#12 links work once ' +
      '(of concurrent requests exactly one gets the file). HEAD answers without using the link up. Unknown, garbled, ' +
      'expired and used links all get the same 404 Problem Details, so that a caller learns nothing about other links.',
    operationId: 'download',
    security: [],
  })
  @ApiParam({ name: 'token', description: 'The opaque token of the link (64 base64url characters).' })
  @ApiProduces('application/x-pem-file', 'application/x-pkcs12')
  @ApiResponse({
    status: 200,
    description: 'The file, with `Content-Disposition: attachment` and `Cache-Control: no-store`.',
    content: {
      'application/x-pem-file': { schema: { type: 'string' } },
      'application/x-pkcs12': { schema: { type: 'string', format: 'binary' } },
    },
  })
  async download(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const file = await unavailableAs503(() => this.links.download(token, { peek: req.method === 'HEAD' }));
    res.status(200);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${file.fileName}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Length', String(file.content.length));
    res.end(req.method === 'HEAD' ? undefined : file.content);
  }
}
