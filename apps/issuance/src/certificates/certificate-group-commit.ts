import { EventEnvelope } from '@ca/contracts';
import { isDatabaseUnavailable, isUniqueViolation } from '@ca/persistence';
import { IssuanceDatabase, IssuanceTables } from '../issuance-database.store';
import { admitWithinLimits } from './certificate-limit';
import { NewCertificate } from './certificate.store';

/**
 * A certificate to store with its `certificate.issued` event, if its tenant is not suspended and
 * within its plan limit (as issuance's own tenants projection has them).
 */
export interface CertificateToStore {
  certificate: NewCertificate;
  event: EventEnvelope;
}

interface Waiting extends CertificateToStore {
  resolve(): void;
  reject(error: unknown): void;
}

/** Enough to amortise a transaction; small enough for the statement's parameters (19 a row). */
const MAX_BATCH = 64;

export interface GroupCommitOptions {
  database: IssuanceDatabase;
  /** Called with the events of each committed batch (those refused by limits left out). */
  onCommitted: (events: EventEnvelope[]) => void;
  /** DEFAULT_CERTIFICATE_LIMIT: the limit of a tenant issuance has not heard of yet. */
  defaultCertificateLimit: number;
  /**
   * Stores the batch's statuses on the public surface first (ResponderPublication.confirm) and
   * returns the ids of events it left out, or throws: nothing of those (or, on a throw, of the
   * batch) is stored here, and their callers get the error (read-your-writes). Default: none.
   */
  publish?: (events: EventEnvelope[]) => Promise<ReadonlySet<string>>;
  /** The error of a caller whose event `publish` left out. */
  unconfirmed?: () => Error;
  /** Certificates per transaction at most (default 64). */
  maxBatch?: number;
  /**
   * Takes back what `publish` stored for events whose certificates this then did not store
   * (ResponderPublication.withdraw); never throws. Awaited before their callers are answered.
   */
  withdraw?: (events: EventEnvelope[]) => Promise<void>;
  /** How long a batch waits at most for the certificates announced (`expect`); 0 (default): never. */
  gatherMs?: number;
}

const DEFAULTS = {
  publish: async () => new Set<string>(),
  unconfirmed: () => new Error('not published'),
  maxBatch: MAX_BATCH,
  withdraw: async () => undefined,
  gatherMs: 0,
} satisfies Partial<GroupCommitOptions>;

/**
 * Group commit: certificates that arrive while a transaction is in flight are stored together in
 * the next one (one BEGIN/COMMIT, one lock and one read of status, limit and count for their tenants, one certificate
 * INSERT and one outbox INSERT for all of them) instead of a transaction each. Nothing waits for a
 * timer: a certificate arriving when no transaction runs is stored at once. Each caller's promise
 * settles only after the commit that holds its row (or with its own refusal: tenant suspended, plan limit reached);
 * if the batch's transaction fails (a duplicate serial, say), its certificates are stored again one
 * per transaction, so one bad row fails only its own caller. Not when the database is away: each
 * would fail the same way, and a commit whose answer was lost must not be stored twice.
 */
export class CertificateGroupCommit {
  private readonly queue: Waiting[] = [];
  private flushing = false;
  /** Certificates announced and not yet queued (`expect`), one ticket each. */
  private readonly arriving = new Set<object>();
  /** Those a gathering batch waits for: announced before it began (later ones go in the next). */
  private awaited?: Set<object>;
  private onArrival?: () => void;

  private readonly options: Required<GroupCommitOptions>;

  constructor(options: GroupCommitOptions) {
    this.options = { ...DEFAULTS, ...options };
  }

  /**
   * Announces a certificate on its way here (its checks and signature under way). A batch about to
   * go out waits up to `gatherMs` for the announced ones to join it, as Postgres's commit_delay
   * waits for commit_siblings: every batch costs its transactions here, at the responder and
   * downstream (outbox, events, webhooks, audit), so fewer, fuller batches cost less per
   * certificate. A lone request is never delayed: nothing else is announced. Call the returned
   * function once the certificate is handed to `store`, or given up; calling it again does nothing.
   */
  expect(): () => void {
    const ticket = {};
    this.arriving.add(ticket);
    return () => {
      if (!this.arriving.delete(ticket)) return;
      this.awaited?.delete(ticket);
      this.onArrival?.();
    };
  }

  /** `arrived`: the function `expect` returned for this certificate, called once it is queued. */
  store(item: CertificateToStore, arrived?: () => void): Promise<void> {
    const stored = new Promise<void>((resolve, reject) => {
      this.queue.push({ ...item, resolve, reject });
    });
    arrived?.();
    if (!this.flushing) void this.flush();
    return stored;
  }

  /**
   * Waits until every certificate announced before now is queued (or given up), the batch is
   * full, or `gatherMs` passed. Not for those announced meanwhile: under a steady stream of
   * requests the wait would never end early.
   */
  private gather(): Promise<void> | undefined {
    // Not even a microtask when there is nothing to wait for: the batch is taken synchronously.
    if (this.options.gatherMs <= 0 || this.arriving.size === 0 || this.queue.length >= this.options.maxBatch)
      return undefined;
    const awaited = new Set(this.arriving);
    this.awaited = awaited;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onArrival = undefined;
        this.awaited = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.options.gatherMs);
      this.onArrival = () => {
        if (awaited.size === 0 || this.queue.length >= this.options.maxBatch) done();
      };
    });
  }

  /**
   * Batch after batch: each is published to the responder, then committed, and the next batch is
   * everything that arrived meanwhile. Not overlapped (publishing the next batch while one
   * commits): that split the certificates in flight into two batches (1.7 certificates a batch
   * against 2.1, embedded, 8 clients), and each batch costs its transactions downstream too
   * (webhooks, outbox, events); measured no faster in either mode (docs/benchmarks.md).
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const gathering = this.gather();
        if (gathering) await gathering;
        const published = await this.publishFirst(this.queue.splice(0, this.options.maxBatch));
        if (published.length > 0) await this.commit(published);
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Publishes the batch's statuses before its transaction, not inside it: an open transaction
   * would hold the embedded database (one session) from the responder. Returns the items to store;
   * those not confirmed are settled here. A serial the transaction then refuses (plan limit,
   * suspension) or does not store (it fails) is withdrawn from the responder (`commit`).
   */
  private async publishFirst(batch: Waiting[]): Promise<Waiting[]> {
    let refused: ReadonlySet<string>;
    try {
      refused = await this.options.publish(batch.map((item) => item.event));
    } catch (error) {
      for (const item of batch) item.reject(error);
      return [];
    }
    if (refused.size === 0) return batch;
    for (const item of batch) if (refused.has(item.event.id)) item.reject(this.options.unconfirmed());
    return batch.filter((item) => !refused.has(item.event.id));
  }

  /** Stores a batch in one transaction; never throws (every waiting caller is settled). */
  private async commit(batch: Waiting[]): Promise<void> {
    let refusals: (Error | undefined)[];
    try {
      refusals = await this.options.database.transaction((tables) =>
        storeBatch(tables, batch, this.options.defaultCertificateLimit),
      );
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        // Published, never stored: the responder forgets them before their callers hear of it.
        // Not a serial stored already: that status is the stored certificate's (the publish left it).
        if (!isUniqueViolation(error)) await this.options.withdraw(batch.map((item) => item.event));
        for (const item of batch) item.reject(error);
        return;
      }
      for (const item of batch) await this.commit([item]);
      return;
    }
    await this.options.withdraw(batch.filter((_, i) => refusals[i] !== undefined).map((item) => item.event));
    const stored = batch.filter((_, i) => refusals[i] === undefined);
    if (stored.length > 0) this.options.onCommitted(stored.map((item) => item.event));
    batch.forEach((item, i) => {
      const refusal = refusals[i];
      if (refusal) item.reject(refusal);
      else item.resolve();
    });
  }
}

/** The batch's statements inside one transaction; returns each item's refusal (undefined: stored). */
async function storeBatch(
  { tenants, certificates, outbox }: IssuanceTables,
  batch: readonly CertificateToStore[],
  defaultCertificateLimit: number,
): Promise<(Error | undefined)[]> {
  const requests = batch.map((item) => ({ tenantId: item.certificate.tenantId }));
  const standings = await tenants.lockAndRead(
    requests.map((request) => request.tenantId),
    defaultCertificateLimit,
  );
  const refusals = admitWithinLimits(requests, standings);
  const admitted = batch.filter((_, i) => refusals[i] === undefined);
  await certificates.insert(admitted.map((item) => item.certificate));
  await outbox.insert(admitted.map((item) => item.event));
  return refusals;
}
