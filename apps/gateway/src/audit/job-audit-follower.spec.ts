import { CaError, ErrorCode, IssuanceApi, JobRevocations } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { AuditEntryInput } from './audit-chain';
import { JobAuditFollower } from './job-audit-follower';
import { FollowedJob, JobAuditAdvance, JobAuditStore } from './job-audit.store';

/** gateway.job_audits and the audit log, in memory: what a follower left behind. */
class MemoryJobAuditStore extends JobAuditStore {
  readonly jobs = new Map<string, FollowedJob & { finished: boolean }>();
  readonly audited: AuditEntryInput[] = [];

  async add(job: Omit<FollowedJob, 'position'>): Promise<void> {
    if (!this.jobs.has(job.jobId)) this.jobs.set(job.jobId, { ...job, position: null, finished: false });
  }
  async unfinished(): Promise<string[]> {
    return [...this.jobs.values()].filter((job) => !job.finished).map((job) => job.jobId);
  }
  async findUnfinished(jobId: string): Promise<FollowedJob | undefined> {
    const job = this.jobs.get(jobId);
    return job && !job.finished ? { ...job } : undefined;
  }
  async finish(jobId: string): Promise<void> {
    this.jobs.get(jobId)!.finished = true;
  }
  async advance(
    jobId: string,
    from: string | null,
    entries: AuditEntryInput[],
    next: string | null,
    finished: boolean,
  ): Promise<JobAuditAdvance> {
    const job = this.jobs.get(jobId);
    if (!job || job.finished) return 'finished';
    if (job.position !== from) return 'moved';
    this.audited.push(...entries);
    job.position = next;
    job.finished = finished;
    return 'written';
  }
}

const JOB = { jobId: 'job-1', tenantId: 'tenant-a', principal: 'alice', requestId: 'req-1' };

/** Issuance answering pages of a job's revocations, two at a time, from `after` on. */
function issuanceOf(revoked: string[]): RpcClient<IssuanceApi> {
  const send = async (_pattern: string, query: { after?: string }): Promise<JobRevocations> => {
    const start = query.after === undefined ? 0 : Number(query.after);
    const page = revoked.slice(start, start + 2);
    return {
      revocations: page.map((certificateId) => ({ certificateId, revokedAt: '2026-01-02T03:04:05.000Z' })),
      next: String(start + page.length),
      finished: start + page.length >= revoked.length,
    };
  };
  return { send } as unknown as RpcClient<IssuanceApi>;
}

async function runToEnd(follower: JobAuditFollower, jobId: string): Promise<void> {
  while (await follower.step(jobId));
}

describe('JobAuditFollower', () => {
  it('audits every revocation of a job once, as the single revocation of its caller', async () => {
    const store = new MemoryJobAuditStore();
    const follower = new JobAuditFollower(store, issuanceOf(['c1', 'c2', 'c3']));
    await store.add(JOB);
    await runToEnd(follower, JOB.jobId);
    await runToEnd(follower, JOB.jobId);

    expect(store.audited).toEqual(
      ['c1', 'c2', 'c3'].map((id) => ({
        occurredAt: new Date('2026-01-02T03:04:05.000Z'),
        tenantId: 'tenant-a',
        principal: 'alice',
        action: 'certificate.revoke',
        resource: `/v1/certificates/${id}/revoke`,
        result: 200,
        code: null,
        requestId: 'req-1',
      })),
    );
    expect(await store.unfinished()).toEqual([]);
  });

  it('writes nothing for a batch read from a position another replica has moved past', async () => {
    const store = new MemoryJobAuditStore();
    const follower = new JobAuditFollower(store, issuanceOf(['c1', 'c2', 'c3']));
    await store.add(JOB);
    const stale = await store.findUnfinished(JOB.jobId);
    await store.advance(JOB.jobId, null, [], '2', false);
    store.findUnfinished = async () => stale;

    expect(await follower.step(JOB.jobId)).toBe(true);
    expect(store.audited).toEqual([]);
    expect(store.jobs.get(JOB.jobId)?.position).toBe('2');
  });

  it('finishes a job issuance does not know, auditing nothing', async () => {
    const store = new MemoryJobAuditStore();
    const send = async () => {
      throw new CaError(ErrorCode.NotFound, 'no such job');
    };
    const follower = new JobAuditFollower(store, { send } as unknown as RpcClient<IssuanceApi>);
    await store.add(JOB);

    expect(await follower.step(JOB.jobId)).toBe(false);
    expect(store.audited).toEqual([]);
    expect(await store.unfinished()).toEqual([]);
  });
});
