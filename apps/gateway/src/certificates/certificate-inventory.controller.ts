import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import {
  CaError,
  INVENTORY_SORTS,
  InventoryPage,
  InventorySummary,
  IssuanceApi,
  IssuancePattern,
  MAX_INVENTORY_LIMIT,
  RevocationJobView,
  RevokeMatchingResult,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import type { Request, Response } from 'express';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { UuidParamPipe } from '../http/uuid-param.pipe';
import {
  InventoryPageDoc,
  InventorySummaryDoc,
  RevocationJobDoc,
  RevokeMatchingRequestDoc,
  RevokeMatchingResponseDoc,
} from './inventory.responses';
import { writeCommand } from './write-command';
import { JobAuditFollower } from '../audit/job-audit-follower';
import { MAX_AUDIT_PRINCIPAL_LENGTH } from '../audit/audit.middleware';
import { truncateCharacters } from '../text/text-rules';
import { CSV_FORMAT, NDJSON_FORMAT, inventoryChunks, streamInventory } from './inventory-stream';

const DATE_TIME = { type: 'string', format: 'date-time' } as const;

/** The filter parameters of docs/api.md#search-certificates, for OpenAPI (issuance checks them). */
const FILTER_QUERIES = [
  {
    name: 'status',
    description: 'Active, Revoked, Expired; several comma-separated.',
    schema: { type: 'string', example: 'Active,Expired' },
  },
  {
    name: 'q',
    description:
      'Case-insensitive substring of commonName, clientId, a DNS subjectAlternativeName or the serial number (hex).',
    schema: { type: 'string', maxLength: 256 },
  },
  { name: 'clientId', description: 'Exact clientId.', schema: { type: 'string' } },
  { name: 'caId', description: 'The issuing CA.', schema: { type: 'string', format: 'uuid' } },
  { name: 'usage', schema: { type: 'string', enum: ['Client', 'Server', 'ClientAndServer'] } },
  { name: 'source', schema: { type: 'string', enum: ['api', 'csr', 'acme'] } },
  { name: 'expiresBefore', description: 'expiresAt earlier than this.', schema: DATE_TIME },
  { name: 'expiresAfter', description: 'expiresAt later than this.', schema: DATE_TIME },
  { name: 'issuedBefore', description: 'issuedAt earlier than this.', schema: DATE_TIME },
  { name: 'issuedAfter', description: 'issuedAt later than this.', schema: DATE_TIME },
];
const SORT_QUERY = {
  name: 'sort',
  schema: { type: 'string', enum: [...INVENTORY_SORTS], default: '-issuedAt' },
};

function ApiFilterQueries(withPaging: boolean): MethodDecorator {
  const queries = [
    ...FILTER_QUERIES,
    SORT_QUERY,
    ...(withPaging
      ? [
          {
            name: 'limit',
            schema: { type: 'integer', minimum: 1, maximum: MAX_INVENTORY_LIMIT, default: 100 },
          },
          {
            name: 'cursor',
            description: 'nextCursor of the previous page, with the same other parameters.',
            schema: { type: 'string' },
          },
        ]
      : []),
  ];
  return (target, key, descriptor) => {
    for (const query of queries) ApiQuery({ required: false, ...query })(target, key, descriptor);
  };
}

/** docs/api.md#search-certificates, #certificate-summary, #export-certificates: the inventory, read through issuance. */
@ApiTags('Certificates v2')
@ApiBearerAuth()
@Controller('v2/certificates')
export class CertificateInventoryController {
  constructor(
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly jobAudits: JobAuditFollower,
  ) {}

  @Get()
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({
    summary: "Search the tenant's certificates: filters, four orders, keyset pages",
    description:
      'Follow nextCursor (same other parameters) until it is null: every certificate that matches throughout the walk comes exactly once. 400 VALIDATION_FAILED names a bad parameter; a cursor of another query or tenant is refused the same way.',
    operationId: 'searchCertificates',
  })
  @ApiFilterQueries(true)
  @ApiOkResponse({ type: InventoryPageDoc })
  search(
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<InventoryPage> {
    return this.issuance.send(IssuancePattern.SearchCertificates, {
      tenantId: principal.tenantId,
      parameters: query,
    });
  }

  @Get('summary')
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({
    summary: 'Counts by status, and Active certificates expiring within 7, 30 and 90 days',
    operationId: 'summarizeCertificates',
  })
  @ApiOkResponse({ type: InventorySummaryDoc })
  summary(@CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<InventorySummary> {
    return this.issuance.send(IssuancePattern.SummarizeCertificates, { tenantId: principal.tenantId });
  }

  @Get('export')
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({
    summary: 'Every matching certificate, streamed: NDJSON, or CSV with a header row for Accept: text/csv',
    description: 'The items of searchCertificates, in the order asked; no limit or cursor.',
    operationId: 'exportCertificates',
  })
  @ApiFilterQueries(false)
  @ApiProduces('application/x-ndjson', 'text/csv')
  @ApiOkResponse({ description: 'One item per line (NDJSON), or a CSV row per item.' })
  async export(
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const paging = ['limit', 'cursor'].filter((name) => name in query);
    if (paging.length > 0) {
      throw CaError.validation(
        paging.map((field) => ({ field, message: 'the export has every match; it takes no ' + field })),
      );
    }
    const csv = req.accepts(['application/x-ndjson', 'text/csv']) === 'text/csv';
    await streamInventory(
      res,
      inventoryChunks(this.issuance, principal.tenantId, query, csv ? 'csv' : 'ndjson'),
      csv ? CSV_FORMAT : NDJSON_FORMAT,
    );
  }

  @Post('revoke-matching')
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: 'Revoke every certificate a filter matches: a dry run that counts, then a job',
    description: [
      'Matches are the certificates the filter (the list parameters, without sort, limit, cursor) matches',
      'that are not revoked yet. dryRun true: 200 {"matched"}, nothing changes. Otherwise expectedCount must',
      'equal the current count (409 COUNT_MISMATCH, nothing revoked), and 202 {"jobId", "matched"}: a job',
      'revokes each one as POST /v1/certificates/{id}/revoke would (event, CRL, OCSP); GET /v2/jobs/{jobId}.',
    ].join(' '),
    operationId: 'revokeMatchingCertificates',
  })
  @ApiBody({ type: RevokeMatchingRequestDoc })
  @ApiOkResponse({ type: RevokeMatchingResponseDoc, description: 'The dry run.' })
  @ApiAcceptedResponse({ type: RevokeMatchingResponseDoc, description: 'The job started.' })
  async revokeMatching(
    @Body() body: unknown,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RevokeMatchingResult> {
    const command = writeCommand(principal, req);
    const result = await this.issuance.send(IssuancePattern.RevokeMatching, { ...command, request: body });
    if ('jobId' in result) {
      // Each revocation of the job is audited as a single one would be (JobAuditFollower).
      await this.jobAudits.follow({
        jobId: result.jobId,
        tenantId: command.tenantId,
        principal: truncateCharacters(command.principal, MAX_AUDIT_PRINCIPAL_LENGTH),
        requestId: command.requestId ?? 'unknown',
      });
    }
    res.status('jobId' in result ? 202 : 200);
    return result;
  }
}

/** docs/api.md#jobs: a bulk revocation's progress, for the tenant that started it. */
@ApiTags('Certificates v2')
@ApiBearerAuth()
@Controller('v2/jobs')
export class JobsController {
  constructor(private readonly issuance: RpcClient<IssuanceApi>) {}

  @Get(':jobId')
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({ summary: "A revoke-matching job's progress", operationId: 'getJob' })
  @ApiOkResponse({ type: RevocationJobDoc })
  job(
    @Param('jobId', new UuidParamPipe()) jobId: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<RevocationJobView> {
    return this.issuance.send(IssuancePattern.GetRevocationJob, { tenantId: principal.tenantId, jobId });
  }
}
