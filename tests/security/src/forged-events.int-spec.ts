import { createHash, webcrypto } from 'node:crypto';
import { Messaging } from '@ca/messaging';
import { assembleCertificateList, encodeTbsCertList, signTbs } from '@ca/pki';
import {
  TestTenant,
  createTenant,
  issueBody,
  eventually,
  sleep,
  eventuallyCrl,
  eventuallyRevokedInOcsp,
  runOperatorCommand,
} from '@ca/system/testing';
import {
  RogueBusClient,
  SystemUnderTest,
  ocspKinds,
  servedCrlDigest,
  startRealSystem,
} from './support/outsider';
import { describeWithRealServices } from './support/real-services';
import { queryRows, readStoredState } from './support/stored-state';

jest.setTimeout(120_000);

/**
 * An outsider with publish rights on a development bus (no NATS users: docs/security.md, "The
 * bus") forges and replays events. The consumers check what they receive (RFC 5280 6.3.3: a CRL
 * is used only when its signature verifies with the issuer's key), set malformed events aside, and
 * go on with the real events that follow. On a production bus the same publishers are refused
 * outright (bus-permissions.int-spec.ts).
 */
describeWithRealServices('security: forged events', [])('forged and replayed events on an open bus', () => {
  let sut: SystemUnderTest;
  let rogue: RogueBusClient;
  let probe: Messaging;
  let victim: TestTenant;
  let other: TestTenant;
  let victimSerials: string[];

  /** Both consumers have taken every event, and no announced CRL waits to be copied. */
  const settled = () =>
    eventually(
      async () => {
        const lag =
          (await probe.events.pending('revocation')) + (await probe.events.pending('ocsp-responder'));
        const pending = await queryRows(sut.databaseUrl, 'SELECT 1 FROM ocsp.pending_crls');
        return lag === 0 && pending.length === 0 ? true : undefined;
      },
      15_000,
      'consumers settled',
    ).then(() => sleep(300));

  beforeAll(async () => {
    sut = await startRealSystem();
    rogue = await RogueBusClient.connect(sut);
    probe = await sut.openMessaging('probe');
    victim = await createTenant(sut);
    other = await createTenant(sut);
    const issued = [await victim.issue(issueBody()), await victim.issue(issueBody({ clientId: 'second' }))];
    victimSerials = issued.map((c) => c.serialNumber);
    await eventuallyCrl(sut.pkiUrl, victim.tenantId, () => true, 'first CRL served');
    await eventuallyCrl(sut.pkiUrl, other.tenantId, () => true, 'first CRL served');
    await settled();
  });

  afterAll(async () => {
    await rogue?.close();
    await sut?.stop();
  });

  /** Issues and revokes a certificate, and waits until OCSP and the served CRL both show it. */
  async function realRevocation(tenant: TestTenant): Promise<string> {
    const issued = await tenant.issue(issueBody({ clientId: 'later' }));
    const answer = await tenant.post(`/v1/certificates/${issued.certificateId}/revoke`, {
      reason: 'after the attack',
      reasonCode: 'KeyCompromise',
    });
    expect(answer.status).toBe(200);
    const serial = issued.serialNumber;
    await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, serial);
    await eventuallyCrl(
      sut.pkiUrl,
      tenant.tenantId,
      (c) => c.entries.some((e) => e.serialNumberHex.toLowerCase() === serial.toLowerCase()),
      'the real revocation on the served CRL',
    );
    await settled();
    return serial;
  }

  it('serves no CRL signed by another key, even with a higher number, and later real CRLs still', async () => {
    const servedBefore = await servedCrlDigest(sut, victim.tenantId);
    const numberBefore = (await eventuallyCrl(sut.pkiUrl, victim.tenantId, () => true)).crl.crlNumber;
    const stored = await readStoredState(sut.databaseUrl);

    // The tenant's own issuer name and key identifier, a good certificate listed, another key.
    const forgerKey = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ]);
    const thisUpdate = new Date();
    const nextUpdate = new Date(thisUpdate.getTime() + 86_400_000);
    const crlNumber = numberBefore + 1000n;
    const tbs = encodeTbsCertList({
      issuerCertificateDer: victim.caDer,
      crlNumber,
      thisUpdate,
      nextUpdate,
      entries: [{ serialNumberHex: victimSerials[0], revocationDate: thisUpdate, reasonCode: 1 }],
    });
    const forged = assembleCertificateList(tbs, await signTbs(tbs, forgerKey.privateKey));
    const blobRef = await probe.blobs.put(forged);
    await rogue.publishEvent('crl.published', victim.tenantId, {
      tenantId: victim.tenantId,
      crlNumber: crlNumber.toString(),
      thisUpdate: thisUpdate.toISOString(),
      nextUpdate: nextUpdate.toISOString(),
      blobRef,
      sha256: createHash('sha256').update(forged).digest('hex'),
    });
    await settled();

    expect(await servedCrlDigest(sut, victim.tenantId)).toBe(servedBefore);
    expect(await ocspKinds(sut, victim.tenantId, victim.caDer, victimSerials)).toEqual(['good', 'good']);
    expect(await readStoredState(sut.databaseUrl)).toEqual(stored);

    // The forged number blocks nothing: the next real CRL is served with the next real number.
    await realRevocation(victim);
    const { crl } = await eventuallyCrl(sut.pkiUrl, victim.tenantId, () => true);
    expect(crl.crlNumber).toBeGreaterThan(numberBefore);
    expect(crl.crlNumber).toBeLessThan(crlNumber);
  });

  it("absorbs a replayed certificate.revoked, and another tenant's revocation replayed as this tenant's changes nothing stored", async () => {
    const sniffed = rogue.record('certificate.revoked');
    const serial = await realRevocation(other);
    await eventually(async () => (sniffed.length > 0 ? true : undefined), 10_000, 'the revocation sniffed');
    const [original] = sniffed;
    const payload = original.payload as Record<string, unknown>;
    expect(payload.serialNumber).toBe(serial);
    const stored = await readStoredState(sut.databaseUrl);
    const victimCrl = await servedCrlDigest(sut, victim.tenantId);

    // Verbatim, under a new message id (past the stream's de-duplication): the inbox absorbs it.
    await rogue.publishRaw('certificate.revoked', Buffer.from(JSON.stringify(original)));
    await settled();
    expect(await readStoredState(sut.databaseUrl)).toEqual(stored);

    // As the victim's: the victim's CA never issued that serial, so its CRL cannot carry it.
    await rogue.publishEvent('certificate.revoked', victim.tenantId, {
      ...payload,
      tenantId: victim.tenantId,
    });
    await settled();
    await sleep(1_000);
    expect(await servedCrlDigest(sut, victim.tenantId)).toBe(victimCrl);
    expect(await ocspKinds(sut, victim.tenantId, victim.caDer, victimSerials)).toEqual(['good', 'good']);
    expect(await readStoredState(sut.databaseUrl)).toEqual(stored);

    // And a real revocation of the victim is applied as ever.
    await realRevocation(victim);
  });

  it("a forged certificate.revoked of a good certificate costs one refused CRL: revocation takes issuance's ledger and goes on", async () => {
    const issuedEvents = rogue.record('certificate.issued');
    const good = await victim.issue(issueBody({ clientId: 'forged-revocation-target' }));
    await eventually(
      async () =>
        issuedEvents.find(
          (e) => (e.payload as { certificateId?: string }).certificateId === good.certificateId,
        ),
      10_000,
      'the issue sniffed',
    );
    const issued = issuedEvents.find(
      (e) => (e.payload as { certificateId?: string }).certificateId === good.certificateId,
    )!.payload as { caId: string; serialNumber: string };
    await settled();
    const numberBefore = (await eventuallyCrl(sut.pkiUrl, victim.tenantId, () => true)).crl.crlNumber;

    // Well-formed and of this tenant CA, so revocation records it and builds a CRL listing it.
    await rogue.publishEvent('certificate.revoked', victim.tenantId, {
      tenantId: victim.tenantId,
      certificateId: good.certificateId,
      caId: issued.caId,
      serialNumber: issued.serialNumber,
      revokedAt: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString(),
      reasonCode: 1,
    });
    // Issuance refuses that CRL (the certificate is Active in its ledger); revocation drops the
    // entry as issuance names it and the next CRL is signed and served without it.
    const { crl } = await eventuallyCrl(
      sut.pkiUrl,
      victim.tenantId,
      (c) => c.crlNumber > numberBefore,
      'a CRL after the forged revocation',
    );
    expect(crl.entries.map((e) => e.serialNumberHex.toLowerCase())).not.toContain(
      issued.serialNumber.toLowerCase(),
    );
    const view = await victim.get(`/v1/certificates/${good.certificateId}`);
    expect(JSON.parse(view.body.toString())).toMatchObject({ status: 'Active' });
    const ledger = await queryRows(
      sut.databaseUrl,
      'SELECT 1 FROM revocation.revoked_certificates WHERE serial_number = $1',
      [issued.serialNumber],
    );
    expect(ledger).toEqual([]);

    // Later real revocations reach the CRL as ever: nothing is frozen.
    await realRevocation(victim);
  });

  it('sets malformed events aside and applies the real ones behind them', async () => {
    const stored = await readStoredState(sut.databaseUrl);
    await rogue.publishRaw('certificate.revoked', Buffer.from('{not json'));
    await rogue.publishEvent('certificate.revoked', victim.tenantId, { tenantId: victim.tenantId });
    await rogue.publishEvent('certificate.revoked', victim.tenantId, {
      tenantId: other.tenantId, // disagrees with the envelope
      certificateId: 'x',
      caId: 'x',
      serialNumber: victimSerials[1],
      revokedAt: new Date().toISOString(),
      reasonCode: 1,
    });
    await rogue.publishEvent('crl.published', victim.tenantId, {
      tenantId: victim.tenantId,
      crlNumber: 'NaN',
    });
    await rogue.publishEvent('ca.initialized', victim.tenantId, { tenantId: victim.tenantId, caId: 42 });
    await settled();
    expect(await readStoredState(sut.databaseUrl)).toEqual(stored);
    expect(await ocspKinds(sut, victim.tenantId, victim.caDer, victimSerials)).toEqual(['good', 'good']);

    await realRevocation(victim);
  });

  it('refuses a tenant.updated dated in the future, and tenant resume lifts a suspension stored with such a date', async () => {
    // What the gateway's password could send: a suspension dated 9999, which no later change would outrank.
    const forged = await rogue.publishEvent('tenant.updated', victim.tenantId, {
      tenantId: victim.tenantId,
      status: 'suspended',
      certificateLimit: 1000,
      updatedAt: '9999-12-31T00:00:00.000Z',
    });
    const letter = await eventually(
      async () => {
        const rows = await queryRows(
          sut.databaseUrl,
          'SELECT reason, detail FROM issuance.event_dead_letters WHERE event_id = $1',
          [forged],
        );
        return rows[0];
      },
      20_000,
      'forged tenant.updated set aside',
    );
    expect(letter).toMatchObject({ reason: 'invalid', detail: expect.stringMatching(/ahead of this clock/) });
    await expect(victim.issue(issueBody({ clientId: 'after-forged-suspension' }))).resolves.toBeDefined();

    // A suspension stored with a future date (by a version without the rule): resume still wins.
    await queryRows(
      sut.databaseUrl,
      `UPDATE issuance.tenants SET status = 'suspended', updated_at = '9999-12-31' WHERE tenant_id = $1`,
      [other.tenantId],
    );
    await expect(other.issue(issueBody({ clientId: 'while-suspended' }))).rejects.toThrow(/issuing failed/);
    expect((await runOperatorCommand(sut, ['tenant', 'resume', other.tenantId])).code).toBe(0);
    await eventually(
      async () =>
        await other
          .issue(issueBody({ clientId: 'after-resume' }))
          .then(() => true)
          .catch(() => undefined),
      20_000,
      'issuance after resume',
    );
  });
});
