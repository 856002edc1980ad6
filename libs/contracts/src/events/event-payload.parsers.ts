import { EventEnvelope } from '../common/event-envelope';
import { TenantStatus } from '../gateway/tenant-updated.event';
import { EventType } from './event-types';
import { KEY_ALGORITHMS } from '../issuance/key-algorithm';
import { isUuid, parseTenantId } from '../common/ids';

/**
 * One checker per event payload type, shared by producers (tests) and consumers: what arrives from
 * the bus is input, so a consumer applies an event only when its envelope and payload have the
 * shape its type promises. Unknown extra fields are allowed (fields are added, never repurposed),
 * missing or mistyped ones are not. Each returns undefined when the payload is fine, else the reason.
 */
type FieldCheck = (value: unknown) => string | undefined;
type PayloadShape = Record<string, { check: FieldCheck; optional?: boolean }>;

// RFC 5280 4.1.2.2: at most 20 octets; serials travel as hexadecimal.
const SERIAL_HEX = /^[0-9a-f]{1,40}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,47})$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;
// ISO 8601 as Date#toISOString writes it (a consumer parses these with new Date()).
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
// C0 and C1 controls and DEL: never part of a principal or a reference.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_BASE64_LENGTH = 1 << 20;
const MAX_TEXT_LENGTH = 1024;

const matches =
  (pattern: RegExp, what: string, maxLength = 256): FieldCheck =>
  (value) =>
    typeof value === 'string' && value.length <= maxLength && pattern.test(value) ? undefined : `not ${what}`;

const uuid: FieldCheck = (value) => (isUuid(value) ? undefined : 'not a UUID');
const serialHex = matches(SERIAL_HEX, 'a hexadecimal serial of at most 20 octets');
const base64 = (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length % 4 === 0
    ? matches(BASE64, 'base64', MAX_BASE64_LENGTH)(value)
    : 'not base64';
const decimal = matches(DECIMAL, 'a decimal number');
const sha256Hex = matches(SHA256_HEX, 'a SHA-256 in hexadecimal');
const instant: FieldCheck = (value) =>
  typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value))
    ? undefined
    : 'not an ISO 8601 UTC instant';
const text: FieldCheck = (value) =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT_LENGTH && !CONTROL.test(value)
    ? undefined
    : `not text of 1 to ${MAX_TEXT_LENGTH} characters without control characters`;
const integer =
  (min: number, max: number): FieldCheck =>
  (value) =>
    Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
      ? undefined
      : `not an integer from ${min} to ${max}`;
const oneOf =
  (values: readonly string[]): FieldCheck =>
  (value) =>
    typeof value === 'string' && values.includes(value) ? undefined : `not one of ${values.join(', ')}`;

const textList =
  (maxItems: number): FieldCheck =>
  (value) =>
    Array.isArray(value) && value.length <= maxItems && value.every((item) => text(item) === undefined)
      ? undefined
      : `not a list of at most ${maxItems} texts`;

/** A flag only ever sent as `true` (absent otherwise). */
const isTrue: FieldCheck = (value) => (value === true ? undefined : 'not true');

const required = (check: FieldCheck) => ({ check });
const optional = (check: FieldCheck) => ({ check, optional: true });

/** RFC 5280 5.3.1 CRLReason values a revocation may record (8, removeFromCRL, included). */
const REASON_CODE = integer(0, 10);
/** A certificate's status sequence (issued is 1, each later change one more; a Postgres integer). */
const STATUS_SEQUENCE = integer(1, 0x7fffffff);

const SHAPES: Record<string, PayloadShape> = {
  [EventType.CaInitialized]: {
    tenantId: required(uuid),
    caId: required(uuid),
    certificateDer: required(base64),
    notBefore: required(instant),
    notAfter: required(instant),
    keyAlgorithm: optional(oneOf(KEY_ALGORITHMS)),
    issuingCaId: optional(uuid),
    issuingCertificateDer: optional(base64),
    issuingNotAfter: optional(instant),
    externalRoot: optional(isTrue),
    initializedBy: optional(text),
  },
  [EventType.IssuingCaAdded]: {
    tenantId: required(uuid),
    caId: required(uuid),
    certificateDer: required(base64),
    notBefore: required(instant),
    notAfter: required(instant),
    issuerCaId: required(uuid),
    rootCertificateDer: required(base64),
    previousCaId: required(uuid),
    addedBy: optional(text),
  },
  [EventType.RootRenewed]: {
    tenantId: required(uuid),
    caId: required(uuid),
    certificateDer: required(base64),
    notBefore: required(instant),
    notAfter: required(instant),
    keyAlgorithm: required(oneOf(KEY_ALGORITHMS)),
    previousRootCaId: required(uuid),
    crossCertificateDer: required(base64),
    renewedBy: optional(text),
  },
  [EventType.ReplaceLeavesRequested]: {
    tenantId: required(uuid),
    caId: required(uuid),
    marked: required(integer(0, Number.MAX_SAFE_INTEGER)),
    requestedAt: required(instant),
    requestedBy: optional(text),
  },
  [EventType.CertificateIssued]: {
    tenantId: required(uuid),
    certificateId: required(uuid),
    caId: required(uuid),
    serialNumber: required(serialHex),
    notBefore: required(instant),
    notAfter: required(instant),
    renewedFrom: optional(uuid),
    issuedBy: optional(text),
    commonName: optional(text),
    clientId: optional(text),
    subjectAlternativeNames: optional(textList(1000)),
    sequence: optional(STATUS_SEQUENCE),
  },
  [EventType.CaRevoked]: {
    tenantId: required(uuid),
    caId: required(uuid),
    issuerCaId: required(uuid),
    serialNumber: required(serialHex),
    revokedAt: required(instant),
    reasonCode: required(REASON_CODE),
    revokedBy: optional(text),
    crossCertificate: optional(isTrue),
  },
  [EventType.CertificateRevoked]: {
    tenantId: required(uuid),
    certificateId: required(uuid),
    caId: required(uuid),
    serialNumber: required(serialHex),
    revokedAt: required(instant),
    reasonCode: required(REASON_CODE),
    revokedBy: optional(text),
    sequence: optional(STATUS_SEQUENCE),
  },
  [EventType.CertificateHoldReleased]: {
    tenantId: required(uuid),
    certificateId: required(uuid),
    caId: required(uuid),
    serialNumber: required(serialHex),
    heldSince: required(instant),
    releasedAt: required(instant),
    releasedBy: required(text),
    sequence: optional(STATUS_SEQUENCE),
  },
  [EventType.CrlPublished]: {
    tenantId: required(uuid),
    crlNumber: required(decimal),
    thisUpdate: required(instant),
    nextUpdate: required(instant),
    blobRef: required(text),
    sha256: required(sha256Hex),
    issuer: optional(oneOf(['root'])),
    caId: optional(uuid),
  },
  [EventType.OcspSignerCertified]: {
    tenantId: required(uuid),
    caId: required(uuid),
    issuer: optional(oneOf(['root'])),
    serialNumber: required(serialHex),
    publicKeySha256: required(sha256Hex),
    notAfter: required(instant),
    certifiedAt: required(instant),
  },
  [EventType.TenantUpdated]: {
    tenantId: required(uuid),
    status: required(oneOf(Object.values(TenantStatus))),
    certificateLimit: required(integer(0, 0x7fffffff)),
    updatedAt: required(instant),
  },
};

/** Whether `payload` has the shape of `type`'s payload: undefined if so, else the first reason. */
export function eventPayloadProblem(type: string, payload: unknown): string | undefined {
  const shape = Object.prototype.hasOwnProperty.call(SHAPES, type) ? SHAPES[type] : undefined;
  if (!shape) return `no payload schema for event type "${String(type).slice(0, 64)}"`;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return 'payload: not an object';
  }
  const fields = payload as Record<string, unknown>;
  for (const [name, { check, optional: isOptional }] of Object.entries(shape)) {
    const value = fields[name];
    if (value === undefined && isOptional) continue;
    const problem = value === undefined ? 'missing' : check(value);
    if (problem) return `payload.${name}: ${problem}`;
  }
  return undefined;
}

/**
 * Whether a delivered envelope can be applied: an id, a known type, a tenant that is the payload's,
 * and a payload of that type's shape. Undefined if so, else the reason (for the log and the metric).
 */
export function eventEnvelopeProblem(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return 'envelope: not an object';
  const envelope = event as Partial<EventEnvelope>;
  if (uuid(envelope.id)) return 'envelope.id: not a UUID';
  if (typeof envelope.type !== 'string') return 'envelope.type: missing';
  if (uuid(envelope.tenantId)) return 'envelope.tenantId: not a UUID';
  if (instant(envelope.occurredAt)) return 'envelope.occurredAt: not an ISO 8601 UTC instant';
  const problem = eventPayloadProblem(envelope.type, envelope.payload);
  if (problem) return problem;
  const payloadTenant = (envelope.payload as { tenantId: string }).tenantId;
  if (parseTenantId(payloadTenant) !== parseTenantId(envelope.tenantId)) {
    return 'payload.tenantId: not the envelope tenant';
  }
  return undefined;
}
