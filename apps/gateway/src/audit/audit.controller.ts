import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { CaError, FieldError } from '@ca/contracts';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { AuditPageFilter, AuditStore } from './audit.store';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const PARAMETERS = ['action', 'principal', 'since', 'until', 'limit', 'cursor'];

class AuditEntryDoc {
  @ApiProperty({ description: 'Position in the log; newer entries have larger ids.' })
  id!: string;
  @ApiProperty({ format: 'date-time' })
  occurredAt!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The token’s `sub`.' })
  principal!: string | null;
  @ApiProperty({ example: 'certificate.revoke' })
  action!: string;
  @ApiProperty({ description: 'The request path.' })
  resource!: string;
  @ApiProperty({ description: 'The HTTP status of the answer.' })
  result!: number;
  @ApiProperty({ type: String, nullable: true, description: 'The problem code of an error answer.' })
  code!: string | null;
  @ApiProperty()
  requestId!: string;
  @ApiPropertyOptional({ description: 'For an aggregated entry: how many calls it stands for.' })
  occurrences?: number;
}

class AuditPageDoc {
  @ApiProperty({ type: [AuditEntryDoc] })
  entries!: AuditEntryDoc[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` for older entries; null at the end.',
  })
  nextCursor!: string | null;
}

export interface AuditPage {
  entries: AuditEntryDoc[];
  nextCursor: string | null;
}

function one(query: Record<string, unknown>, name: string, errors: FieldError[]): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    errors.push({ field: name, message: 'give it once' });
    return undefined;
  }
  return value;
}

function dateTime(query: Record<string, unknown>, name: string, errors: FieldError[]): Date | undefined {
  const value = one(query, name, errors);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    errors.push({ field: name, message: 'must be an RFC 3339 date-time' });
    return undefined;
  }
  return date;
}

/** The parameters of GET /v2/audit, or 400 VALIDATION_FAILED naming each bad one. */
export function auditPageParameters(query: Record<string, unknown>): {
  filter: AuditPageFilter;
  limit: number;
} {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query))
    if (!PARAMETERS.includes(name)) errors.push({ field: name, message: 'is not a parameter of this call' });
  const action = one(query, 'action', errors);
  if (action !== undefined && (action.length > 100 || !/^[a-z0-9._-]*$/i.test(action)))
    errors.push({ field: 'action', message: 'letters, digits, dots, hyphens and underscores, at most 100' });
  const principal = one(query, 'principal', errors);
  if (principal !== undefined && [...principal].length > 256)
    errors.push({ field: 'principal', message: 'at most 256 characters' });
  const since = dateTime(query, 'since', errors);
  const until = dateTime(query, 'until', errors);
  const limitText = one(query, 'limit', errors);
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (limitText !== undefined && (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_LIMIT))
    errors.push({ field: 'limit', message: `a whole number from 1 to ${MAX_LIMIT}` });
  const cursor = one(query, 'cursor', errors);
  if (cursor !== undefined && (!/^\d{1,15}$/.test(cursor) || Number(cursor) < 1))
    errors.push({ field: 'cursor', message: 'must be the nextCursor of a previous page' });
  if (errors.length > 0) throw CaError.validation(errors);
  return {
    filter: {
      ...(action ? { actionPrefix: action } : {}),
      ...(principal ? { principal } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
      ...(cursor ? { beforeId: Number(cursor) } : {}),
    },
    limit,
  };
}

/** docs/api.md#audit-log: the tenant's own audit log, newest first, as the console's audit page reads it. */
@ApiTags('Audit')
@ApiBearerAuth()
@Controller('v2/audit')
export class AuditController {
  constructor(private readonly audit: AuditStore) {}

  @Get()
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: "The tenant's audit log, newest first, filtered by action, principal and time",
    operationId: 'listAuditEntries',
  })
  @ApiQuery({
    name: 'action',
    required: false,
    description: 'Action, or its beginning (`certificate.` for every certificate action).',
  })
  @ApiQuery({ name: 'principal', required: false, description: 'Exact principal (`sub`).' })
  @ApiQuery({ name: 'since', required: false, schema: { type: 'string', format: 'date-time' } })
  @ApiQuery({ name: 'until', required: false, schema: { type: 'string', format: 'date-time' } })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  })
  @ApiQuery({ name: 'cursor', required: false, description: 'nextCursor of the previous page.' })
  @ApiOkResponse({ type: AuditPageDoc })
  async list(
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<AuditPage> {
    const { filter, limit } = auditPageParameters(query);
    const entries = await this.audit.tenantPage(principal.tenantId, filter, limit + 1);
    const page = entries.slice(0, limit);
    return {
      entries: page.map((e) => ({
        id: String(e.id),
        occurredAt: e.occurredAt.toISOString(),
        principal: e.principal,
        action: e.action,
        resource: e.resource,
        result: e.result,
        code: e.code,
        requestId: e.requestId,
        ...(e.occurrences == null ? {} : { occurrences: e.occurrences }),
      })),
      nextCursor: entries.length > limit ? String(page[page.length - 1].id) : null,
    };
  }
}
