import { Logger } from '@nestjs/common';
import {
  CaError,
  ErrorCode,
  CertificateHoldReleasedPayload,
  CertificateIssuedPayload,
  CertificateRevokedPayload,
  EventEnvelope,
  parseTenantId,
  parseUuid,
} from '@ca/contracts';
import { WaitingForDependency } from '@ca/messaging';
import { publicationMetrics } from '@ca/observability';
import { CertificateStatusStore, IssuedStatusEvent } from './certificate-status.store';
import { STATUS_CHANGED_CHANNEL } from './status-change-channel.store';

export { STATUS_CHANGED_CHANNEL };

export interface ApplyOptions {
  /**
   * The direct path (issuance waits for the answer): a status of a CA this responder does not hold
   * is an error, so issuance does not answer as published; on the event path it is logged and skipped.
   */
  strict?: boolean;
}

const notTenantCa = () =>
  new CaError(ErrorCode.Conflict, 'The certificate names a CA this responder does not publish (yet).');

export interface CertificateStatusRow {
  /** The CA that issued the certificate: a CertID naming another CA does not match it (RFC 6960 4.1.1). */
  caId: string;
  notAfter: Date;
  revokedAt: Date | null;
  reasonCode: number | null;
  /** When a revocation or a released hold last changed the status (the database clock); null if never. */
  changedAt?: Date | null;
}

/** Rows kept in memory per replica; the oldest go first beyond this. */
const REMEMBERED_ROWS = 100_000;
/** Direct-path issues remembered until their stream copy comes; the oldest go first beyond this. */
const STORED_DIRECTLY = 10_000;
/** How often a replica looks for revocations that another replica applied. */
const CHANGE_POLL_MS = 250;
/** Changes are read again this far back: a transaction can commit after a later-stamped one. */
const CHANGE_OVERLAP_MS = 5_000;

/**
 * The responder's own record of every certificate's status, fed by `certificate.issued` and
 * `certificate.revoked`. A revocation reaches OCSP answers as soon as this row changes (it does
 * not wait for the CRL): the response cache is keyed by these statuses.
 *
 * Rows found are remembered in memory, so the OCSP hot path does not query the database. Only
 * a revocation or a released hold changes a row; the replica that applies it forgets the row at
 * once, and the same transaction notifies every replica (`pg_notify`, delivered at commit, before
 * the applying replica can answer with the new status), which reads the recent changes at once and
 * answers nothing from memory until it has (StatusChangeListener, `changedElsewhere`). Polling `status_changed_at` every 250 ms stays as the safety net for
 * notifications missed while a listener reconnects. Serials not found (answered `unknown`) are not
 * remembered: their `certificate.issued` may come next. docs/architecture.md#replica-consistency
 */
export class CertificateStatusProjection {
  private readonly logger = new Logger('CertificateStatusProjection');
  private readonly rows = new Map<string, CertificateStatusRow>();
  /** Ids of issues stored through the direct path whose stream copy has not come yet. */
  private readonly storedDirectly = new Set<string>();
  /** Bumped by every forget: a lookup that overlapped one does not remember what it read. */
  private forgets = 0;
  private polledUpTo: Date | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** Re-reading the changes another replica notified: memory is not trusted meanwhile. */
  private settling: Promise<void> | undefined;
  private changedAgain = false;
  /** Whether other replicas share the database and must be told of each status change. */
  private notifyReplicas = false;

  constructor(private readonly store: CertificateStatusStore) {}

  async applyIssued(event: EventEnvelope<CertificateIssuedPayload>): Promise<void> {
    await this.applyIssuedBatch([event]);
  }

  /**
   * applyIssued for a run of consecutive `certificate.issued` events, in one transaction of a few
   * statements whatever its length: one inbox insert, one CA check, one status insert. Each event
   * is still checked on its own (isTenantCa): a forged one is refused, the others applied. An
   * issue never changes a row already there: its sequence (1) is the lowest a certificate has.
   */
  async applyIssuedBatch(events: readonly EventEnvelope<CertificateIssuedPayload>[]): Promise<void> {
    // The stream's copy of issues this replica stored through the direct path a moment ago (the
    // same envelopes: issuance's outbox is the only writer of the stream) has nothing left to
    // store; it only enters the inbox, which tells a withdrawal that the certificate exists.
    if (events.length > 0 && events.every((event) => this.storedDirectly.has(event.id))) {
      await this.store.recordInInbox(events);
      for (const event of events) this.storedDirectly.delete(event.id);
      return;
    }
    await this.store.applyOnceEach(events, async (store, fresh) => {
      const accepted = await this.tenantCaEvents(store, fresh);
      if (accepted.length === 0) return;
      await store.addIssued(accepted.map(issuedStatus));
    });
  }

  /**
   * The direct path's applyIssuedBatch, in one statement: the status rows of the events whose CA
   * is the tenant's, and the ids of the others (a CA this responder does not hold yet), for
   * issuance to answer those callers as unconfirmed. No inbox row: the events, arriving later,
   * find their rows there (an issue never changes a row) and still count for the inbox then.
   */
  async applyIssuedDirect(events: readonly EventEnvelope<CertificateIssuedPayload>[]): Promise<string[]> {
    const refused = await this.store.addIssuedOfHeldCas(events.map(issuedStatus));
    if (refused.length > 0)
      this.logger.warn({ events: refused }, 'status of a CA not published here refused');
    const left = new Set(refused);
    for (const event of events) if (!left.has(event.id)) this.rememberStoredDirectly(event.id);
    return refused;
  }

  /**
   * Withdraws statuses the direct path stored for certificates issuance then did not store (its
   * transaction refused them or failed after the publish): the serial is answered `unknown` again,
   * as for a serial never issued (RFC 6960 2.2). Only a row still as issued goes (never revoked nor
   * released since), and only while its event has not come through the stream: the stream carries
   * only committed events, so one in the inbox proves the certificate exists after all (a commit
   * whose answer was lost). An event that comes later through the stream stores the row again.
   * Returns how many rows went.
   */
  async withdrawIssued(events: readonly EventEnvelope<CertificateIssuedPayload>[]): Promise<number> {
    const named = events.filter((event) => event.tenantId === event.payload.tenantId);
    if (named.length === 0) return 0;
    const rows = await this.store.withdrawIssued(named.map(issuedStatus));
    for (const row of rows) this.forget(row.tenant_id, row.serial_number);
    if (rows.length > 0)
      this.logger.warn(
        { serials: rows.map((row) => `${row.tenant_id}:${row.serial_number}`) },
        'status withdrawn: issuance did not store the certificate after publishing it',
      );
    return rows.length;
  }

  /**
   * A revocation, applied only if it is newer than the row's status (STATUS_SEQUENCE_RULE): a
   * late or replayed one, after a released hold say, changes nothing, however old it is.
   */
  async applyRevoked(
    event: EventEnvelope<CertificateRevokedPayload>,
    options: ApplyOptions = {},
  ): Promise<void> {
    const { tenantId, caId, serialNumber, revokedAt, reasonCode, sequence } = event.payload;
    let applied = false;
    await this.store.applyOnce(event, async (store) => {
      if (!(await this.isTenantCa(store, event))) {
        if (options.strict) throw notTenantCa();
        return;
      }
      const changed = await store.revoke({
        tenantId,
        serialNumber,
        revokedAt,
        reasonCode,
        caId,
        sequence: sequence ?? null,
      });
      if (!changed) return this.staleChange(event);
      await this.notifyChange(store);
      applied = true;
    });
    // Forgotten once committed, and only if the row changed: the same event arriving again (the
    // event path after the direct one), or one older than the row's status, leaves the row as it
    // is, and a remembered row stays answered from memory.
    if (applied) this.forget(tenantId, serialNumber);
  }

  /**
   * applyRevoked for a run of `certificate.revoked` events of distinct certificates (the direct
   * path of a bulk revocation's batch), in one transaction of a few statements whatever its length:
   * one inbox insert, one CA check, one upsert. Each event is still checked on its own; with
   * `strict`, one of a CA not the tenant's refuses the run (nothing applied), as it would alone.
   */
  async applyRevokedBatch(
    events: readonly EventEnvelope<CertificateRevokedPayload>[],
    options: ApplyOptions = {},
  ): Promise<void> {
    const keys = new Set(events.map((event) => `${event.payload.tenantId}:${event.payload.serialNumber}`));
    if (events.length === 1 || keys.size < events.length) {
      for (const event of events) await this.applyRevoked(event, options);
      return;
    }
    const changed: { tenant_id: string; serial_number: string }[] = [];
    await this.store.applyOnceEach(events, async (store, fresh) => {
      const accepted = await this.tenantCaEvents(store, fresh);
      if (options.strict && accepted.length < fresh.length) throw notTenantCa();
      if (accepted.length === 0) return;
      const rows = await store.revokeMany(
        accepted.map(({ payload }) => ({
          tenantId: payload.tenantId,
          serialNumber: payload.serialNumber,
          revokedAt: payload.revokedAt,
          reasonCode: payload.reasonCode,
          caId: payload.caId,
          sequence: payload.sequence ?? null,
        })),
      );
      const applied = new Set(rows.map((row) => `${row.tenant_id.toLowerCase()}:${row.serial_number}`));
      for (const event of accepted) {
        const key = `${parseTenantId(event.payload.tenantId)}:${event.payload.serialNumber}`;
        if (!applied.has(key)) this.staleChange(event);
      }
      if (rows.length > 0) await this.notifyChange(store);
      changed.push(...rows);
    });
    // Forgotten once committed, as applyRevoked does, each row that changed.
    for (const row of changed) this.forget(row.tenant_id, row.serial_number);
  }

  /**
   * A released certificateHold answers `good` again (RFC 6960 2.2). Only that hold is undone (same
   * reason 6 and revocation date), so a late or forged event cannot clear another revocation.
   * Like a revocation, it stamps `status_changed_at`, so other replicas forget the row too.
   */
  async applyHoldReleased(
    event: EventEnvelope<CertificateHoldReleasedPayload>,
    options: ApplyOptions = {},
  ): Promise<void> {
    const { tenantId, serialNumber, heldSince, sequence } = event.payload;
    let applied = false;
    await this.store.applyOnce(event, async (store) => {
      if (!(await this.isTenantCa(store, event))) {
        if (options.strict) throw notTenantCa();
        return;
      }
      const changed = await store.releaseHold(tenantId, serialNumber, heldSince, sequence ?? null);
      if (!changed) return this.staleChange(event);
      await this.notifyChange(store);
      applied = true;
    });
    // Forgotten once committed, and only if the row changed: the same event arriving again (the
    // event path after the direct one), or one older than the row's status, leaves the row as it
    // is, and a remembered row stays answered from memory.
    if (applied) this.forget(tenantId, serialNumber);
  }

  /** A change older than the row's status: logged and counted, never applied. */
  private staleChange(event: EventEnvelope<{ sequence?: number }>): void {
    publicationMetrics.staleStatusChangesTotal.inc({ type: event.type });
    this.logger.log(
      { eventId: event.id, type: event.type, tenantId: event.tenantId, sequence: event.payload.sequence },
      'status change older than the one applied: ignored',
    );
  }

  /** The rows of all `serialNumbers` if every one is remembered (no query), else undefined. */
  remembered(tenantId: string, serialNumbers: string[]): Map<string, CertificateStatusRow> | undefined {
    if (this.settling) return undefined;
    const found = new Map<string, CertificateStatusRow>();
    for (const serial of serialNumbers) {
      const row = this.rows.get(`${tenantId}:${serial}`);
      if (!row) return undefined;
      found.set(serial, row);
    }
    return found;
  }

  async find(tenantId: string, serialNumbers: string[]): Promise<Map<string, CertificateStatusRow>> {
    const found = new Map<string, CertificateStatusRow>();
    const missing: string[] = [];
    for (const serial of serialNumbers) {
      const row = this.settling ? undefined : this.rows.get(`${tenantId}:${serial}`);
      if (row) found.set(serial, row);
      else missing.push(serial);
    }
    if (missing.length === 0) return found;
    const forgetsBefore = this.forgets;
    const rows = await this.store.find(tenantId, missing);
    const current = forgetsBefore === this.forgets;
    for (const r of rows) {
      const row = {
        caId: r.ca_id,
        notAfter: r.not_after,
        revokedAt: r.revoked_at,
        reasonCode: r.reason_code,
        changedAt: r.status_changed_at,
      };
      found.set(r.serial_number, row);
      if (current) this.remember(`${tenantId}:${r.serial_number}`, row);
    }
    return found;
  }

  /**
   * Starts polling for revocations applied by other replicas, from the database's clock now.
   * Without other replicas (the embedded database is one process's alone) there is nothing to
   * poll: every revocation goes through `applyRevoked` here, which forgets the row at once, and a
   * query every 250 ms on the shared in-process database would only delay other work.
   */
  async watchChanges({ otherReplicas = true }: { otherReplicas?: boolean } = {}): Promise<void> {
    if (this.timer) return;
    const now = await this.store.now();
    // Rows read before this point may predate a change the first poll would not reach back to.
    this.polledUpTo = now;
    this.rows.clear();
    this.forgets++;
    this.notifyReplicas = otherReplicas;
    if (!otherReplicas) return;
    this.timer = setInterval(() => {
      this.polling ??= this.pollChanges()
        .catch((err: unknown) => this.logger.warn({ err }, 'polling status changes failed; retrying'))
        .finally(() => (this.polling = undefined));
    }, CHANGE_POLL_MS).unref();
  }

  async stopWatching(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  private async pollChanges(): Promise<void> {
    if (!this.polledUpTo) return;
    const since = new Date(this.polledUpTo.getTime() - CHANGE_OVERLAP_MS);
    const rows = await this.store.changedSince(since);
    for (const row of rows) {
      // A row remembered as it now is need not be read again, though the overlap window keeps
      // returning it. A change is a revocation or a released hold, so revoked is not final.
      const remembered = this.rows.get(`${row.tenant_id}:${row.serial_number}`);
      if (!remembered || !sameStatus(remembered, row)) this.forget(row.tenant_id, row.serial_number);
      if (row.status_changed_at > this.polledUpTo) this.polledUpTo = row.status_changed_at;
    }
  }

  private rememberStoredDirectly(eventId: string): void {
    this.storedDirectly.add(eventId);
    if (this.storedDirectly.size > STORED_DIRECTLY)
      this.storedDirectly.delete(this.storedDirectly.values().next().value as string);
  }

  private remember(key: string, row: CertificateStatusRow): void {
    this.rows.set(key, row);
    if (this.rows.size > REMEMBERED_ROWS) this.rows.delete(this.rows.keys().next().value as string);
  }

  /**
   * Tenant isolation in the projection itself (docs/architecture.md#bounded-contexts): a status event counts only
   * when its envelope and payload name one tenant and its CA is that tenant's CA, so an event naming
   * another tenant's certificate can neither make this tenant answer for it nor change the owner's
   * answers. `ca.initialized` comes first on the same ordered consumer, so the CA row is there.
   */
  private async isTenantCa(
    store: CertificateStatusStore,
    event: EventEnvelope<{ tenantId: string; caId: string }>,
  ): Promise<boolean> {
    const { tenantId, caId } = event.payload;
    // Every tenant holding that CA id (one at most: CA ids are unique across tenants).
    const holders = event.tenantId === tenantId ? await store.holdersOf(caId) : [];
    const ours = holders.some((holder) => holder.toLowerCase() === parseTenantId(tenantId));
    // A CA known to no tenant yet may come next: wait for it. One known under another tenant is
    // that tenant's: the event is refused at once, not held back in front of the tenant's later ones.
    if (event.tenantId === tenantId && holders.length === 0) throw waitingForCa(event);
    const rows = ours ? holders : [];
    if (rows.length === 0) {
      this.logger.warn(
        { eventId: event.id, type: event.type, tenantId: event.tenantId },
        'status event of another CA refused',
      );
    }
    return rows.length > 0;
  }

  /** isTenantCa for many events with one query: those that pass, in their order. */
  private async tenantCaEvents<T extends EventEnvelope<{ tenantId: string; caId: string }>>(
    store: CertificateStatusStore,
    events: T[],
  ): Promise<T[]> {
    const named = events.filter((event) => event.tenantId === event.payload.tenantId);
    const tenants = [...new Set(named.map((event) => event.payload.tenantId))];
    const rows = tenants.length === 0 ? [] : await store.casOf(tenants);
    // Every CA of the tenant that signs or signed leaves (docs/api.md#add-an-issuing-ca).
    const cas = new Set(rows.map((row) => `${row.tenant_id.toLowerCase()}:${row.ca_id.toLowerCase()}`));
    const known = (event: T) =>
      cas.has(`${parseTenantId(event.payload.tenantId)}:${parseUuid(event.payload.caId)}`);
    // A tenant's own event of a CA not known yet came before that CA's event: it waits (the run is
    // then retried one event at a time, so only that one waits). A CA known under another tenant
    // is not one to wait for: that event is refused below, at once.
    const unknown = named.filter((event) => !known(event));
    if (unknown.length > 0) {
      const held = await store.heldAmong([...new Set(unknown.map((event) => String(event.payload.caId)))]);
      const elsewhere = new Set(held.map((caId) => caId.toLowerCase()));
      const early = unknown.find((event) => !elsewhere.has(String(event.payload.caId).toLowerCase()));
      if (early) throw waitingForCa(early);
    }
    return events.filter((event) => {
      const { tenantId, caId } = event.payload;
      const ok = event.tenantId === tenantId && cas.has(`${parseTenantId(tenantId)}:${parseUuid(caId)}`);
      if (!ok) {
        this.logger.warn(
          { eventId: event.id, type: event.type, tenantId: event.tenantId },
          'status event of another CA refused',
        );
      }
      return ok;
    });
  }

  /**
   * Called for each notification of another replica's change (which names nothing): reads the
   * changes since the last poll at once, one read at a time for any number of notifications, and
   * until that read is done every lookup goes to the table, so no remembered status outlives a
   * change committed elsewhere.
   */
  changedElsewhere(): void {
    this.forgets++; // a lookup under way does not remember what it read
    if (this.settling) {
      this.changedAgain = true;
      return;
    }
    this.settling = (async () => {
      do {
        this.changedAgain = false;
        await this.pollChanges();
      } while (this.changedAgain);
    })()
      .catch((err: unknown) => this.logger.warn({ err }, 'reading notified status changes failed'))
      .finally(() => (this.settling = undefined));
  }

  private async notifyChange(store: CertificateStatusStore): Promise<void> {
    if (!this.notifyReplicas) return;
    await store.notifyChange();
  }

  private forget(tenantId: string, serialNumber: string): void {
    this.forgets++;
    this.rows.delete(`${tenantId.toLowerCase()}:${serialNumber}`);
  }
}

function sameStatus(
  row: CertificateStatusRow,
  current: { revoked_at: Date | null; reason_code: number | null; status_changed_at: Date },
): boolean {
  return (
    row.changedAt?.getTime() === current.status_changed_at.getTime() &&
    (row.revokedAt?.getTime() ?? null) === (current.revoked_at?.getTime() ?? null) &&
    row.reasonCode === current.reason_code
  );
}

/**
 * An event of a tenant's own CA that is not known here yet (its `ca.initialized` or
 * `ca.issuing-added` comes later, say replayed from the outbox): applied once that CA is.
 */
function waitingForCa(event: EventEnvelope<{ tenantId: string; caId: string }>): WaitingForDependency {
  return new WaitingForDependency(
    `waiting for CA ${String(event.payload.caId).slice(0, 64)} of tenant ${event.tenantId}`,
  );
}

/** The status row an issue event states, with the event's id. */
function issuedStatus(event: EventEnvelope<CertificateIssuedPayload>): IssuedStatusEvent {
  return {
    eventId: event.id,
    tenantId: event.payload.tenantId,
    serialNumber: event.payload.serialNumber,
    notAfter: event.payload.notAfter,
    caId: event.payload.caId,
    sequence: event.payload.sequence ?? null,
  };
}
