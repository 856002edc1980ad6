import { randomUUID } from 'node:crypto';
import { EventEnvelope } from '../common/event-envelope';
import { eventEnvelopeProblem, eventPayloadProblem } from './event-payload.parsers';
import { EventType } from './event-types';

const tenantId = randomUUID();
const now = new Date().toISOString();
const envelope = (type: string, payload: unknown): EventEnvelope => ({
  id: randomUUID(),
  type,
  tenantId,
  occurredAt: now,
  payload,
});

const valid: Record<string, Record<string, unknown>> = {
  [EventType.CaInitialized]: {
    tenantId,
    caId: randomUUID(),
    certificateDer: 'MAA=',
    notBefore: now,
    notAfter: now,
  },
  [EventType.CaRevoked]: {
    tenantId,
    caId: randomUUID(),
    issuerCaId: randomUUID(),
    serialNumber: '7F00AA',
    revokedAt: now,
    reasonCode: 1,
    revokedBy: 'operator',
  },
  [EventType.IssuingCaAdded]: {
    tenantId,
    caId: randomUUID(),
    certificateDer: 'MAo=',
    notBefore: now,
    notAfter: now,
    issuerCaId: randomUUID(),
    rootCertificateDer: 'MAo=',
    previousCaId: randomUUID(),
    addedBy: 'operator',
  },
  [EventType.RootRenewed]: {
    tenantId,
    caId: randomUUID(),
    certificateDer: 'MAo=',
    notBefore: now,
    notAfter: now,
    keyAlgorithm: 'P-384',
    previousRootCaId: randomUUID(),
    crossCertificateDer: 'MAo=',
    renewedBy: 'operator',
  },
  [EventType.ReplaceLeavesRequested]: {
    tenantId,
    caId: randomUUID(),
    marked: 3,
    requestedAt: now,
    requestedBy: 'operator',
  },
  [EventType.CertificateIssued]: {
    tenantId,
    certificateId: randomUUID(),
    caId: randomUUID(),
    serialNumber: '7f00aa',
    notBefore: now,
    notAfter: now,
    issuedBy: 'alice',
    commonName: 'payments-client',
    clientId: 'payments-service',
    subjectAlternativeNames: ['api.example.com'],
  },
  [EventType.CertificateRevoked]: {
    tenantId,
    certificateId: randomUUID(),
    caId: randomUUID(),
    serialNumber: '7F00AA',
    revokedAt: now,
    reasonCode: 1,
  },
  [EventType.CertificateHoldReleased]: {
    tenantId,
    certificateId: randomUUID(),
    caId: randomUUID(),
    serialNumber: '7F00AA',
    heldSince: now,
    releasedAt: now,
    releasedBy: 'alice',
  },
  [EventType.CrlPublished]: {
    tenantId,
    crlNumber: '18446744073709551617',
    thisUpdate: now,
    nextUpdate: now,
    blobRef: 'blob-1',
    sha256: 'a'.repeat(64),
  },
  [EventType.TenantUpdated]: { tenantId, status: 'suspended', certificateLimit: 0, updatedAt: now },
  [EventType.OcspSignerCertified]: {
    tenantId,
    caId: randomUUID(),
    serialNumber: '7f01',
    publicKeySha256: 'ab'.repeat(32),
    notAfter: now,
    certifiedAt: now,
  },
};

describe('event payload checkers', () => {
  it('has a schema for every event type a service records, so none is set aside as unknown', () => {
    for (const type of Object.values(EventType))
      expect({ type, problem: eventPayloadProblem(type, valid[type]) }).toEqual({ type });
  });

  it.each(Object.entries(valid))(
    'accepts a well-formed %s, with fields it does not know',
    (type, payload) => {
      expect(eventPayloadProblem(type, { ...payload, addedLater: 1 })).toBeUndefined();
      expect(eventEnvelopeProblem(envelope(type, payload))).toBeUndefined();
    },
  );

  it('accepts a ca.initialized naming an issuing CA and the key algorithm', () => {
    const payload = {
      ...valid[EventType.CaInitialized],
      keyAlgorithm: 'RSA-3072',
      issuingCaId: randomUUID(),
      issuingCertificateDer: 'MAA=',
      issuingNotAfter: now,
    };
    expect(eventPayloadProblem(EventType.CaInitialized, payload)).toBeUndefined();
  });

  it.each([
    [EventType.CertificateRevoked, { reasonCode: 11 }, 'payload.reasonCode'],
    [EventType.CertificateRevoked, { serialNumber: 'zz' }, 'payload.serialNumber'],
    [EventType.CertificateIssued, { notAfter: 'tomorrow' }, 'payload.notAfter'],
    [EventType.CertificateIssued, { issuedBy: 'a\u0000b' }, 'payload.issuedBy'],
    [EventType.CertificateIssued, { subjectAlternativeNames: ['a', 7] }, 'payload.subjectAlternativeNames'],
    [EventType.CertificateIssued, { subjectAlternativeNames: 'a' }, 'payload.subjectAlternativeNames'],
    [EventType.CaInitialized, { certificateDer: 'not base64!' }, 'payload.certificateDer'],
    [EventType.CaInitialized, { issuingCertificateDer: 'not base64!' }, 'payload.issuingCertificateDer'],
    [EventType.CaInitialized, { issuingCaId: 'issuing' }, 'payload.issuingCaId'],
    [EventType.CaInitialized, { keyAlgorithm: 'RSA-1024' }, 'payload.keyAlgorithm'],
    [EventType.RootRenewed, { crossCertificateDer: undefined }, 'payload.crossCertificateDer: missing'],
    [EventType.RootRenewed, { previousRootCaId: 'root' }, 'payload.previousRootCaId'],
    [EventType.CertificateHoldReleased, { heldSince: undefined }, 'payload.heldSince: missing'],
    [EventType.CrlPublished, { crlNumber: '-1' }, 'payload.crlNumber'],
    [EventType.CrlPublished, { sha256: 'abc' }, 'payload.sha256'],
    [EventType.CrlPublished, { issuer: 'issuing' }, 'payload.issuer'],
    [EventType.CaRevoked, { issuerCaId: undefined }, 'payload.issuerCaId: missing'],
    [EventType.CaRevoked, { reasonCode: 11 }, 'payload.reasonCode'],
    [EventType.ReplaceLeavesRequested, { marked: -1 }, 'payload.marked'],
    [EventType.TenantUpdated, { status: 'deleted' }, 'payload.status'],
    [EventType.TenantUpdated, { certificateLimit: 'lots' }, 'payload.certificateLimit'],
    [EventType.TenantUpdated, { certificateLimit: undefined }, 'payload.certificateLimit: missing'],
  ])('refuses %s with %j, naming %s', (type, change, reason) => {
    expect(eventPayloadProblem(type, { ...valid[type], ...change })).toMatch(reason);
  });

  it('refuses an envelope without an id, of an unknown type, or whose payload names another tenant', () => {
    const payload = valid[EventType.TenantUpdated];
    expect(eventEnvelopeProblem({ ...envelope(EventType.TenantUpdated, payload), id: 'x' })).toMatch(
      'envelope.id',
    );
    expect(eventEnvelopeProblem(envelope('tenant.deleted', payload))).toMatch('no payload schema');
    expect(
      eventEnvelopeProblem(envelope(EventType.TenantUpdated, { ...payload, tenantId: randomUUID() })),
    ).toMatch('not the envelope tenant');
    expect(eventEnvelopeProblem(envelope(EventType.TenantUpdated, null))).toMatch('not an object');
  });
});
