import { randomUUID } from 'node:crypto';
import {
  CA_ONLY_REVOCATION_REASON_CODES,
  CaError,
  ErrorCode,
  FieldError,
  JobRevocations,
  JobRevocationsQuery,
  RevocationJobQuery,
  RevocationJobView,
  RevokeCertificateRequest,
  RevokeMatchingCommand,
  RevokeMatchingResult,
  assertCommandFields,
  parseInventoryQuery,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { IssuanceDatabase } from '../issuance-database.store';
import { RevocationJobStore } from './revocation-job.store';

const BODY_FIELDS = ['filter', 'reason', 'reasonCode', 'dryRun', 'expectedCount'];

/**
 * docs/api.md#revoke-matching: the certificates a filter matches that are not revoked yet are
 * counted (dry run), or, when the caller confirms that count, chosen in the same transaction as
 * the job that revokes them (RevocationJobRunner), so the job revokes exactly what was confirmed.
 */
export class RevokeMatchingHandler {
  constructor(
    private readonly database: IssuanceDatabase,
    private readonly onJobCreated: (jobId: string) => void,
  ) {}

  async execute(command: RevokeMatchingCommand): Promise<RevokeMatchingResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', requestId: 'optionalText' });
    const body = command.request;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw CaError.validation([{ field: 'body', message: 'must be a JSON object' }]);
    }
    const values = body as Record<string, unknown>;
    const errors: FieldError[] = Object.keys(values)
      .filter((name) => !BODY_FIELDS.includes(name))
      .map((field) => ({ field, message: 'is not a field of this request' }));
    const filter = filterOf(values.filter, errors);
    const revocation = await revocationOf(values, errors);
    if (values.dryRun !== undefined && typeof values.dryRun !== 'boolean') {
      errors.push({ field: 'dryRun', message: 'must be true or false' });
    }
    const dryRun = values.dryRun === true;
    const expected = values.expectedCount;
    if (!dryRun && !(Number.isSafeInteger(expected) && (expected as number) >= 0)) {
      errors.push({
        field: 'expectedCount',
        message: 'required (the dry run matched count) unless dryRun is true',
      });
    }
    if (errors.length > 0 || !filter || !revocation) throw CaError.validation(errors);

    const now = new Date();
    if (dryRun)
      return {
        matched: await this.database.tables.revocationJobs.countUnrevoked(command.tenantId, filter, now),
      };
    const jobId = randomUUID();
    await this.database.transaction(async ({ revocationJobs }) => {
      await revocationJobs.insert({
        id: jobId,
        tenantId: command.tenantId,
        principal: command.principal,
        requestId: command.requestId ?? null,
        reason: revocation.reason,
        reasonCode: revocation.reasonCode,
      });
      const inserted = await revocationJobs.chooseItems(jobId, command.tenantId, filter, now);
      if (inserted !== expected) {
        throw new CaError(
          ErrorCode.CountMismatch,
          `The filter matches ${inserted} certificates now, not ${String(expected)}; nothing was revoked.`,
          [{ field: 'expectedCount', message: `the filter matches ${inserted} certificates now` }],
        );
      }
      await revocationJobs.setTotal(jobId, inserted);
    });
    this.onJobCreated(jobId);
    return { jobId, matched: expected as number };
  }

  revocations(query: JobRevocationsQuery): Promise<JobRevocations> {
    return jobRevocations(this.database.tables.revocationJobs, query);
  }

  async job(query: RevocationJobQuery): Promise<RevocationJobView> {
    assertCommandFields(query, { tenantId: 'uuid', jobId: 'uuid' });
    const j = await this.database.tables.revocationJobs.ofTenant(query.jobId, query.tenantId);
    // Another tenant's job is as unknown as one that never was.
    if (!j) throw CaError.notFound('No such job.');
    return {
      jobId: j.id,
      kind: 'revoke-matching',
      status: j.status,
      total: j.total,
      done: j.done,
      failed: j.failed,
      ...(j.status === 'failed' && j.failure ? { error: j.failure } : {}),
    };
  }
}

/** Where a reading of a job's revocations stopped: the revoking transaction and the certificate. */
const POSITION = /^(\d{1,20})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const MAX_REVOCATIONS_READ = 1000;

/**
 * The certificates a job revoked, for the gateway to audit each (JobRevocationsQuery): in the
 * order of the transactions that revoked them, and only those older than every transaction still
 * running, so that nothing commits later behind a position already read; exactly once each when
 * read from the position the previous answer gave.
 */
export async function jobRevocations(
  jobs: RevocationJobStore,
  query: JobRevocationsQuery,
): Promise<JobRevocations> {
  assertCommandFields(query, { tenantId: 'uuid', jobId: 'uuid' });
  const after = query.after === undefined ? undefined : POSITION.exec(query.after);
  if (query.after !== undefined && !after)
    throw CaError.validation([{ field: 'after', message: 'not a position' }]);
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > MAX_REVOCATIONS_READ) {
    throw CaError.validation([{ field: 'limit', message: `1 to ${MAX_REVOCATIONS_READ}` }]);
  }
  const status = await jobs.statusOf(query.jobId, query.tenantId);
  if (status === undefined) throw CaError.notFound('No such job.');
  const position = after ? { revokedIn: after[1], certificateId: after[2] } : undefined;
  const rows = await jobs.revocations(query.jobId, query.tenantId, query.limit, position);
  const last = rows[rows.length - 1];
  let finished = false;
  if (status !== 'running' && rows.length === 0) {
    // Ended, and nothing more is readable: finished unless some revocation is still hidden behind
    // an older transaction (of anything) that has not ended yet.
    finished = !(await jobs.anyRevocationAfter(query.jobId, position));
  }
  return {
    revocations: rows.map((r) => ({
      certificateId: r.certificate_id,
      revokedAt: r.revoked_at.toISOString(),
    })),
    next: last ? `${last.revoked_in}.${last.certificate_id}` : (query.after ?? null),
    finished,
  };
}

function filterOf(raw: unknown, errors: FieldError[]) {
  try {
    return parseInventoryQuery(raw ?? {}, false).filter;
  } catch (error) {
    if (!(error instanceof CaError)) throw error;
    errors.push(...(error.errors ?? []).map((e) => ({ ...e, field: `filter.${e.field}` })));
    return undefined;
  }
}

/** The reason fields of a single revocation (docs/api.md#revoke-a-certificate), checked the same way. */
async function revocationOf(
  values: Record<string, unknown>,
  errors: FieldError[],
): Promise<{ reason: string; reasonCode: string } | undefined> {
  try {
    const request = await validateDto(RevokeCertificateRequest, {
      reason: values.reason,
      reasonCode: values.reasonCode,
    });
    const reasonCode = request.reasonCode ?? 'Unspecified';
    if (CA_ONLY_REVOCATION_REASON_CODES.includes(reasonCode)) {
      errors.push({ field: 'reasonCode', message: `${reasonCode} is for CA certificates (RFC 5280 5.3.1)` });
      return undefined;
    }
    return { reason: request.reason, reasonCode };
  } catch (error) {
    if (!(error instanceof CaError)) throw error;
    errors.push(...(error.errors ?? []));
    return undefined;
  }
}
