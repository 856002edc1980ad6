import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import {
  CertificateHoldReleasedPayload,
  CertificateIssuedPayload,
  CertificateRevokedPayload,
  EventEnvelope,
  EventType,
} from '@ca/contracts';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { OCSP_MIGRATIONS } from '../migrations';
import { OCSP_SCHEMA } from '../ocsp.schema';
import { CertificateStatusProjection, STATUS_CHANGED_CHANNEL } from './certificate-status.projection';
import { SqlCertificateStatusStore } from './certificate-status.store';

/**
 * The status rows the OCSP hot path answers from memory: a revocation must reach the answers of
 * the replica that applied it at once, and of every other replica (each event is applied by one
 * replica only) within a second.
 */
jest.setTimeout(60_000);

const tenantId = randomUUID();
const caId = randomUUID();

function issued(serialNumber: string): EventEnvelope<CertificateIssuedPayload> {
  return {
    id: randomUUID(),
    type: EventType.CertificateIssued,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      certificateId: randomUUID(),
      caId,
      serialNumber,
      notBefore: new Date().toISOString(),
      notAfter: new Date(Date.now() + 86_400_000).toISOString(),
    },
  };
}

function revoked(serialNumber: string): EventEnvelope<CertificateRevokedPayload> {
  return {
    id: randomUUID(),
    type: EventType.CertificateRevoked,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      certificateId: randomUUID(),
      caId,
      serialNumber,
      revokedAt: new Date().toISOString(),
      reasonCode: 1,
    },
  };
}

/** A certificateHold (reason 6) of `serialNumber`, at a whole second as issuance records it. */
function held(serialNumber: string): EventEnvelope<CertificateRevokedPayload> {
  const event = revoked(serialNumber);
  const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
  return { ...event, payload: { ...event.payload, revokedAt, reasonCode: 6 } };
}

function released(
  hold: EventEnvelope<CertificateRevokedPayload>,
): EventEnvelope<CertificateHoldReleasedPayload> {
  return {
    id: randomUUID(),
    type: EventType.CertificateHoldReleased,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      certificateId: hold.payload.certificateId,
      caId,
      serialNumber: hold.payload.serialNumber,
      heldSince: hold.payload.revokedAt,
      releasedAt: new Date().toISOString(),
      releasedBy: 'projection-test',
    },
  };
}

const serial = () => randomUUID().replace(/-/g, '').toUpperCase();

/**
 * Looks `serials` up until the replica remembers them (2 s at most). A lookup that overlaps a
 * forget does not remember what it read, by design, and the 250 ms poll forgets every row changed
 * in the last 5 s (earlier tests' too): under load one lookup may always overlap one.
 */
async function lookUntilRemembered(replica: CertificateStatusProjection, serials: string[]): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (replica.remembered(tenantId, serials) === undefined && Date.now() < deadline)
    await replica.find(tenantId, serials);
}

describe.each(databaseKinds())('CertificateStatusProjection (%s database)', (kind) => {
  let database: TestDatabase;
  let sources: DataSource[];
  let replicaA: CertificateStatusProjection;
  let replicaB: CertificateStatusProjection;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const open = () =>
      openSchemaDataSource({
        url: database.url,
        schema: OCSP_SCHEMA,
        entities: [],
        migrations: OCSP_MIGRATIONS,
      });
    sources = [await open(), await open()];
    replicaA = new CertificateStatusProjection(new SqlCertificateStatusStore(sources[0]));
    replicaB = new CertificateStatusProjection(new SqlCertificateStatusStore(sources[1]));
    // Status events are applied only for the tenant's own CA (tenant isolation).
    await sources[0].query(
      `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at)
       VALUES ($1, $2, $3, now() + interval '1 year', now())`,
      [tenantId, caId, Buffer.from([0x30, 0x00])],
    );
    await replicaA.watchChanges();
  });

  afterAll(async () => {
    await replicaA?.stopWatching();
    for (const source of sources ?? []) await source.destroy();
    await database?.drop();
  });

  it('answers from memory once read, and forgets a row revoked on the same replica at once', async () => {
    const s = serial();
    await replicaA.applyIssued(issued(s));
    expect(replicaA.remembered(tenantId, [s])).toBeUndefined();
    expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeNull();
    expect(replicaA.remembered(tenantId, [s])?.get(s)?.revokedAt).toBeNull();

    await replicaA.applyRevoked(revoked(s));
    expect(replicaA.remembered(tenantId, [s])).toBeUndefined();
    expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeInstanceOf(Date);
  });

  // LISTEN/NOTIFY between replicas is real Postgres only (the embedded database has one replica).
  (kind === 'postgres' ? it : it.skip)(
    'notifies a change without naming tenant or serial (any role may listen); a replica told of it reads the change before answering from memory',
    async () => {
      const s = serial();
      await replicaB.watchChanges();
      await replicaA.applyIssued(issued(s));
      expect((await replicaB.find(tenantId, [s])).get(s)?.revokedAt).toBeNull();
      expect(replicaB.remembered(tenantId, [s])).toBeDefined();
      const eavesdropper = new Client({ connectionString: database.url });
      await eavesdropper.connect();
      try {
        await eavesdropper.query(`LISTEN ${STATUS_CHANGED_CHANNEL}`);
        const heard = new Promise<string | undefined>((resolve) =>
          eavesdropper.once('notification', (message) => resolve(message.payload)),
        );
        await replicaA.applyRevoked(revoked(s));
        expect(await heard).toBe('');
      } finally {
        await eavesdropper.end();
      }
      replicaB.changedElsewhere();
      expect(replicaB.remembered(tenantId, [s])).toBeUndefined();
      expect((await replicaB.find(tenantId, [s])).get(s)?.revokedAt).toBeInstanceOf(Date);
      await replicaB.stopWatching();
    },
  );

  it('forgets a row revoked through another replica within a second', async () => {
    const s = serial();
    await replicaB.applyIssued(issued(s));
    await lookUntilRemembered(replicaA, [s]);
    expect(replicaA.remembered(tenantId, [s])?.get(s)?.revokedAt).toBeNull();

    await replicaB.applyRevoked(revoked(s));
    const started = Date.now();
    while (replicaA.remembered(tenantId, [s]) !== undefined && Date.now() - started < 5_000)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeInstanceOf(Date);
  });

  it('keeps a row remembered as revoked while the poll window still returns it', async () => {
    const s = serial();
    await replicaB.applyIssued(issued(s));
    await replicaB.applyRevoked(revoked(s));
    await lookUntilRemembered(replicaA, [s]);
    expect(replicaA.remembered(tenantId, [s])?.get(s)?.revokedAt).toBeInstanceOf(Date);
    // Several polls later (every 250 ms, each reading 5 s back), still answered from memory.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(replicaA.remembered(tenantId, [s])?.get(s)?.revokedAt).toBeInstanceOf(Date);
  });

  describe('a released certificateHold (certificate.hold-released)', () => {
    it('answers good again, also on a replica that remembered the hold', async () => {
      const s = serial();
      await replicaB.applyIssued(issued(s));
      const hold = held(s);
      await replicaB.applyRevoked(hold);
      await lookUntilRemembered(replicaA, [s]);
      expect(replicaA.remembered(tenantId, [s])?.get(s)?.reasonCode).toBe(6);

      await replicaB.applyHoldReleased(released(hold));
      expect((await replicaB.find(tenantId, [s])).get(s)).toMatchObject({
        revokedAt: null,
        reasonCode: null,
      });
      const started = Date.now();
      while (replicaA.remembered(tenantId, [s]) !== undefined && Date.now() - started < 5_000)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(Date.now() - started).toBeLessThan(1_000);
      expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeNull();

      // Held again: revoked again, with the new hold's time.
      const again = held(s);
      await replicaA.applyRevoked(again);
      expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt?.toISOString()).toBe(
        again.payload.revokedAt,
      );
    });

    it('does not put back a held row read before the release was applied, nor the released one before the revocation', async () => {
      // Embedded (no polling): only this projection's own forgets can keep a stale row out.
      const single = new CertificateStatusProjection(new SqlCertificateStatusStore(sources[1]));
      await single.watchChanges({ otherReplicas: false });
      const s = serial();
      await single.applyIssued(issued(s));
      const hold = held(s);
      await single.applyRevoked(hold);
      // A lookup reads the row, and its answer comes back only after `change` was applied.
      const readAcross = async (change: () => Promise<void>) => {
        const query = sources[1].query.bind(sources[1]);
        let read!: () => void;
        let answer!: () => void;
        const wasRead = new Promise<void>((resolve) => (read = resolve));
        const mayAnswer = new Promise<void>((resolve) => (answer = resolve));
        const spy = jest.spyOn(sources[1], 'query').mockImplementationOnce(async (...args) => {
          const rows: unknown = await query(...args);
          read();
          await mayAnswer;
          return rows;
        });
        const lookup = single.find(tenantId, [s]);
        await wasRead;
        await change();
        answer();
        const found = (await lookup).get(s);
        spy.mockRestore();
        return found;
      };

      expect((await readAcross(() => single.applyHoldReleased(released(hold))))?.reasonCode).toBe(6);
      expect(single.remembered(tenantId, [s])).toBeUndefined();
      expect((await single.find(tenantId, [s])).get(s)).toMatchObject({ revokedAt: null, reasonCode: null });

      await single.watchChanges({ otherReplicas: false }); // forgets every row: the next lookup reads the table
      expect((await readAcross(() => single.applyRevoked(revoked(s))))?.revokedAt).toBeNull();
      expect(single.remembered(tenantId, [s])).toBeUndefined();
      expect((await single.find(tenantId, [s])).get(s)?.reasonCode).toBe(1);
      await single.stopWatching();
    });

    it('leaves any other revocation as it is: another reason, or another hold than the one named', async () => {
      const [forGood, reheld] = [serial(), serial()];
      const keyCompromise = revoked(forGood);
      keyCompromise.payload.revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
      await replicaA.applyRevoked(keyCompromise);
      await replicaA.applyHoldReleased(released(keyCompromise));
      const hold = held(reheld);
      await replicaA.applyRevoked(hold);
      const stale = released(hold);
      stale.payload.heldSince = new Date(Date.parse(hold.payload.revokedAt) - 60_000).toISOString();
      await replicaA.applyHoldReleased(stale);
      const found = await replicaA.find(tenantId, [forGood, reheld]);
      expect(found.get(forGood)?.reasonCode).toBe(1);
      expect(found.get(reheld)?.reasonCode).toBe(6);
    });
  });

  describe('the status sequence (a late or replayed event is a no-op for good)', () => {
    /** The same event as issuance recorded it, with the certificate's status sequence. */
    const sequenced = <T extends EventEnvelope<{ sequence?: number }>>(event: T, sequence: number): T => ({
      ...event,
      payload: { ...event.payload, sequence },
    });
    /** Delivered again under a new id: past the inbox and JetStream's de-duplication window. */
    const replayed = <T extends EventEnvelope>(event: T): T => ({ ...event, id: randomUUID() });

    it('ignores a revocation replayed after the hold it made was released', async () => {
      const s = serial();
      await replicaA.applyIssued(sequenced(issued(s), 1));
      const hold = sequenced(held(s), 2);
      await replicaA.applyRevoked(hold);
      await replicaA.applyHoldReleased(sequenced(released(hold), 3));
      await replicaA.applyRevoked(replayed(hold));
      expect((await replicaB.find(tenantId, [s])).get(s)).toMatchObject({
        revokedAt: null,
        reasonCode: null,
      });
    });

    it('ignores a release older than the hold that followed it', async () => {
      const s = serial();
      await replicaA.applyIssued(sequenced(issued(s), 1));
      const first = sequenced(held(s), 2);
      await replicaA.applyRevoked(first);
      const release = sequenced(released(first), 3);
      await replicaA.applyHoldReleased(release);
      const second = sequenced(revoked(s), 4);
      await replicaA.applyRevoked(second);
      await replicaA.applyHoldReleased(replayed(release));
      await replicaA.applyRevoked(replayed(first));
      expect((await replicaB.find(tenantId, [s])).get(s)?.reasonCode).toBe(1);
    });

    it('applies a change that arrives before an older one, and the older one then changes nothing', async () => {
      const s = serial();
      const issue = sequenced(issued(s), 1);
      const revocation = sequenced(revoked(s), 2);
      // The direct path stored the revocation; the issue event arrives late.
      await replicaA.applyRevoked(revocation);
      await replicaA.applyIssued(issue);
      expect((await replicaB.find(tenantId, [s])).get(s)?.reasonCode).toBe(1);
    });

    it('keeps the old rule for events recorded before sequences, and never lets one undo a sequenced change', async () => {
      const s = serial();
      await replicaA.applyIssued(issued(s));
      const legacyHold = held(s);
      await replicaA.applyRevoked(legacyHold);
      await replicaA.applyHoldReleased(sequenced(released(legacyHold), 3));
      await replicaA.applyRevoked(replayed(legacyHold));
      expect((await replicaB.find(tenantId, [s])).get(s)?.revokedAt).toBeNull();
    });
  });

  it('does not poll when told there is no other replica, and still forgets its own revocations', async () => {
    // sources[1]: replica B's, which does not watch (replica A polls on sources[0]).
    const single = new CertificateStatusProjection(new SqlCertificateStatusStore(sources[1]));
    const queries = jest.spyOn(sources[1], 'query');
    await single.watchChanges({ otherReplicas: false });
    const s = serial();
    await single.applyIssued(issued(s));
    await single.find(tenantId, [s]);
    queries.mockClear();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(queries.mock.calls.filter(([sql]) => String(sql).includes('status_changed_at >'))).toEqual([]);
    queries.mockRestore();
    await single.applyRevoked(revoked(s));
    expect(single.remembered(tenantId, [s])).toBeUndefined();
    expect((await single.find(tenantId, [s])).get(s)?.revokedAt).toBeInstanceOf(Date);
    await single.stopWatching();
  });

  it('does not remember a serial it did not find: its issue event may come next', async () => {
    const s = serial();
    expect((await replicaA.find(tenantId, [s])).size).toBe(0);
    expect(replicaA.remembered(tenantId, [s])).toBeUndefined();
    await replicaB.applyIssued(issued(s));
    expect((await replicaA.find(tenantId, [s])).get(s)).toBeDefined();
  });

  describe('a run of certificate.issued events (applyIssuedBatch)', () => {
    const inboxed = async (ids: string[]): Promise<number> =>
      (
        await sources[0].query('SELECT count(*)::int AS n FROM ocsp.inbox WHERE event_id = ANY($1::uuid[])', [
          ids,
        ])
      )[0].n;

    it('applies every event of the run, and a redelivered run changes nothing', async () => {
      const serials = [serial(), serial(), serial()];
      const run = serials.map(issued);
      await replicaA.applyIssuedBatch(run);
      const found = await replicaB.find(tenantId, serials);
      expect([...found.keys()].sort()).toEqual([...serials].sort());
      expect(found.get(serials[0])?.notAfter.toISOString()).toBe(run[0].payload.notAfter);

      await replicaA.applyIssuedBatch(run);
      expect(await inboxed(run.map((e) => e.id))).toBe(3);
    });

    it('takes the stream copy of issues stored through the direct path into the inbox, so they can no longer be withdrawn', async () => {
      const serials = [serial(), serial()];
      const run = serials.map(issued);
      expect(await replicaA.applyIssuedDirect(run)).toEqual([]);
      expect(await inboxed(run.map((e) => e.id))).toBe(0);
      await replicaA.applyIssuedBatch(run);
      expect(await inboxed(run.map((e) => e.id))).toBe(2);
      // The certificates were committed (their events came through the stream): a late
      // withdrawal of them takes nothing away.
      expect(await replicaA.withdrawIssued(run)).toBe(0);
      expect([...(await replicaB.find(tenantId, serials)).keys()].sort()).toEqual([...serials].sort());
    });

    it('withdraws an issue stored through the direct path whose certificate was never committed: unknown again', async () => {
      const lost = issued(serial());
      await replicaA.applyIssuedDirect([lost]);
      await lookUntilRemembered(replicaA, [lost.payload.serialNumber]);
      expect(await replicaA.withdrawIssued([lost])).toBe(1);
      expect(replicaA.remembered(tenantId, [lost.payload.serialNumber])).toBeUndefined();
      expect((await replicaB.find(tenantId, [lost.payload.serialNumber])).size).toBe(0);
    });

    it('applies in full a stream run of which only some issues came through the direct path', async () => {
      const [direct, streamOnly] = [issued(serial()), issued(serial())];
      await replicaA.applyIssuedDirect([direct]);
      await replicaA.applyIssuedBatch([direct, streamOnly]);
      expect(await inboxed([direct.id, streamOnly.id])).toBe(2);
      const found = await replicaB.find(tenantId, [
        direct.payload.serialNumber,
        streamOnly.payload.serialNumber,
      ]);
      expect(found.size).toBe(2);
    });

    it('refuses a forged event of the run on its own and applies the others', async () => {
      const [ok1, ok2] = [serial(), serial()];
      const forgedEnvelope = { ...issued(serial()), tenantId: randomUUID() };
      await replicaA.applyIssuedBatch([issued(ok1), forgedEnvelope, issued(ok2)]);
      const found = await replicaB.find(tenantId, [ok1, ok2, forgedEnvelope.payload.serialNumber]);
      expect([...found.keys()].sort()).toEqual([ok1, ok2].sort());
      // Refused events are still recorded as seen: a redelivery is not examined again.
      expect(await inboxed([forgedEnvelope.id])).toBe(1);
    });

    it("lets a leaf of a CA not known yet wait (nothing applied, not recorded), and applies it once its CA's event came", async () => {
      const laterTenant = randomUUID();
      const laterCa = randomUUID();
      const early = issued(serial());
      early.tenantId = laterTenant;
      early.payload = { ...early.payload, tenantId: laterTenant, caId: laterCa };
      const ok = issued(serial());
      await expect(replicaA.applyIssuedBatch([ok, early])).rejects.toThrow(
        `waiting for CA ${laterCa} of tenant ${laterTenant}`,
      );
      await expect(replicaA.applyIssued(early)).rejects.toThrow('waiting for CA');
      expect(await inboxed([ok.id, early.id])).toBe(0);
      await sources[0].query(
        `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at)
         VALUES ($1, $2, $3, now() + interval '1 year', now())`,
        [laterTenant, laterCa, Buffer.from([0x30, 0x00])],
      );
      await replicaA.applyIssuedBatch([ok, early]);
      expect((await replicaB.find(laterTenant, [early.payload.serialNumber])).size).toBe(1);
      expect((await replicaB.find(tenantId, [ok.payload.serialNumber])).size).toBe(1);
    });

    it("refuses at once, without waiting, an event naming another tenant's CA under a tenant's own id", async () => {
      const otherTenant = randomUUID();
      const s = serial();
      const forgedIssue = issued(s);
      forgedIssue.tenantId = otherTenant;
      forgedIssue.payload = { ...forgedIssue.payload, tenantId: otherTenant };
      const forgedRevoke = revoked(s);
      forgedRevoke.tenantId = otherTenant;
      forgedRevoke.payload = { ...forgedRevoke.payload, tenantId: otherTenant };
      await replicaA.applyIssuedBatch([issued(serial()), forgedIssue]);
      await replicaA.applyRevoked(forgedRevoke);
      expect(await inboxed([forgedIssue.id, forgedRevoke.id])).toBe(2);
      expect((await replicaB.find(otherTenant, [s])).size).toBe(0);
      expect((await replicaB.find(tenantId, [s])).size).toBe(0);
    });

    it('does not bring back as good a certificate whose revocation came first', async () => {
      const s = serial();
      await replicaA.applyRevoked(revoked(s));
      await replicaA.applyIssuedBatch([issued(serial()), issued(s)]);
      expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeInstanceOf(Date);
    });

    it('applies nothing from a run whose status insert fails, so the whole run can come again', async () => {
      const good = issued(serial());
      const bad = issued(serial());
      bad.payload = { ...bad.payload, notAfter: 'not a date' };
      await expect(replicaA.applyIssuedBatch([good, bad])).rejects.toThrow();
      expect(await inboxed([good.id, bad.id])).toBe(0);
      expect((await replicaA.find(tenantId, [good.payload.serialNumber])).size).toBe(0);
    });
  });

  describe('a run of certificate.revoked events (applyRevokedBatch, a bulk revocation published at once)', () => {
    const sequenced = <T extends EventEnvelope<{ sequence?: number }>>(event: T, sequence: number): T => ({
      ...event,
      payload: { ...event.payload, sequence },
    });

    it('revokes every certificate of the run, each forgotten from memory, and leaves one older than its row', async () => {
      const serials = [serial(), serial(), serial()];
      await replicaA.applyIssuedBatch(serials.map((s) => sequenced(issued(s), 1)));
      // The third was held and released since: the run's revocation of it is older (sequence 2).
      const hold = sequenced(held(serials[2]), 2);
      await replicaA.applyRevoked(hold);
      await replicaA.applyHoldReleased(sequenced(released(hold), 3));
      await lookUntilRemembered(replicaA, serials);
      expect(replicaA.remembered(tenantId, serials)?.size).toBe(3);

      await replicaA.applyRevokedBatch(serials.map((s) => sequenced(revoked(s), 2)));
      expect(replicaA.remembered(tenantId, serials)).toBeUndefined();
      const found = await replicaB.find(tenantId, serials);
      expect(serials.map((s) => found.get(s)?.revokedAt instanceof Date)).toEqual([true, true, false]);
      expect(found.get(serials[0])?.reasonCode).toBe(1);
    });

    it("refuses, when strict, a run holding an event of another tenant's CA: nothing of it applied", async () => {
      const [ok, theirs] = [serial(), serial()];
      const forged = revoked(theirs);
      forged.tenantId = randomUUID();
      forged.payload = { ...forged.payload, tenantId: forged.tenantId };
      await replicaA.applyIssued(issued(ok));
      await expect(replicaA.applyRevokedBatch([revoked(ok), forged], { strict: true })).rejects.toThrow(
        'does not publish',
      );
      expect((await replicaB.find(tenantId, [ok])).get(ok)?.revokedAt).toBeNull();
    });
  });
});
