import { TenantCommand } from '../common/tenant-command';

/** Request/reply subjects answered by the acme context (docs/architecture.md, acme). */
export const AcmePattern = {
  /** One ACME HTTP request, forwarded by the gateway's edge (docs/api.md#acme). */
  Http: 'acme.http',
  CreateEabKey: 'acme.eab-key.create',
  ListEabKeys: 'acme.eab-key.list',
  DisableEabKey: 'acme.eab-key.disable',
  /** docs/api.md#acme-profiles: define (or replace), list and delete the tenant's profiles. */
  PutProfile: 'acme.profile.put',
  ListProfiles: 'acme.profile.list',
  DeleteProfile: 'acme.profile.delete',
} as const;
export type AcmePattern = (typeof AcmePattern)[keyof typeof AcmePattern];

/** What the gateway forwards of an HTTP request under `/acme/{tenantId}/`. */
export interface AcmeHttpRequest {
  tenantId: string;
  method: string;
  /** The path below `/acme/{tenantId}` (`/directory`, `/new-order`, …), without the query. */
  path: string;
  contentType?: string;
  /** The request body, base64 (empty for GET and HEAD). */
  body: string;
  clientAddress: string;
}

/** The answer the gateway writes back as it is. */
export interface AcmeHttpResponse {
  status: number;
  headers: Record<string, string | string[]>;
  /** base64 */
  body: string;
  /** `acme:<accountId>` when an account signed the request: the gateway's audit entry names it. */
  principal?: string;
  /**
   * The request asked for no change (GET, HEAD, or a POST-as-GET: a JWS with an empty payload):
   * the gateway does not audit it (docs/api.md#audit-log).
   */
  readOnly?: true;
}

/** `POST /v2/acme/eab-keys`: the gateway's ephemeral X25519 key, to which the HMAC key is sealed. */
export interface CreateEabKeyCommand extends TenantCommand {
  /** DER SubjectPublicKeyInfo of an X25519 key, base64. */
  recipientPublicKey: string;
}

export interface CreateEabKeyResult {
  keyId: string;
  createdAt: string;
  /** The HMAC key, sealed to recipientPublicKey (never in clear on the bus). */
  sealedHmacKey: { senderPublicKey: string; iv: string; ciphertext: string };
}

/** docs/api.md#acme-external-account-binding list entry: never the key itself. */
export interface EabKeySummary {
  keyId: string;
  createdAt: string;
  boundAccount?: string;
  disabled: boolean;
}

export interface DisableEabKeyCommand extends TenantCommand {
  keyId: string;
}

/** docs/api.md#acme-profiles: what an order choosing this profile gets (draft-ietf-acme-profiles). */
export interface AcmeProfile {
  name: string;
  description: string;
  validityDays: number;
  usage: 'Server' | 'ClientAndServer';
  /** The profile of orders that name none; at most one per tenant. */
  default: boolean;
}

export interface PutAcmeProfileCommand extends TenantCommand {
  profile: AcmeProfile;
}

export interface DeleteAcmeProfileCommand extends TenantCommand {
  name: string;
}

export type AcmeApi = {
  [AcmePattern.Http]: [AcmeHttpRequest, AcmeHttpResponse];
  [AcmePattern.CreateEabKey]: [CreateEabKeyCommand, CreateEabKeyResult];
  [AcmePattern.ListEabKeys]: [{ tenantId: string }, { keys: EabKeySummary[] }];
  [AcmePattern.DisableEabKey]: [DisableEabKeyCommand, EabKeySummary];
  [AcmePattern.PutProfile]: [PutAcmeProfileCommand, AcmeProfile];
  [AcmePattern.ListProfiles]: [{ tenantId: string }, { profiles: AcmeProfile[] }];
  [AcmePattern.DeleteProfile]: [DeleteAcmeProfileCommand, { deleted: true }];
};

const isString = (v: unknown): v is string => typeof v === 'string';
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Schema check of a forwarded request (what the bus delivers is input). */
export function parseAcmeHttpRequest(value: unknown): AcmeHttpRequest | undefined {
  if (!isRecord(value)) return undefined;
  const { tenantId, method, path, contentType, body, clientAddress } = value;
  if (!isString(tenantId) || !isString(method) || !isString(path)) return undefined;
  if (!isString(body) || !BASE64.test(body) || !isString(clientAddress)) return undefined;
  if (contentType !== undefined && !isString(contentType)) return undefined;
  if (!path.startsWith('/') || path.length > 512 || method.length > 16) return undefined;
  return { tenantId, method, path, contentType, body, clientAddress };
}

/** Schema check of a forwarded answer, in the gateway. */
export function parseAcmeHttpResponse(value: unknown): AcmeHttpResponse | undefined {
  if (!isRecord(value) || !Number.isInteger(value.status) || !isRecord(value.headers)) return undefined;
  if (!isString(value.body) || !BASE64.test(value.body)) return undefined;
  for (const header of Object.values(value.headers)) {
    if (!isString(header) && !(Array.isArray(header) && header.every(isString))) return undefined;
  }
  const status = value.status as number;
  if (status < 100 || status > 599) return undefined;
  if (value.principal !== undefined && !isString(value.principal)) return undefined;
  if (value.readOnly !== undefined && value.readOnly !== true) return undefined;
  return {
    status,
    headers: value.headers as AcmeHttpResponse['headers'],
    body: value.body,
    ...(isString(value.principal) ? { principal: value.principal } : {}),
    ...(value.readOnly === true ? { readOnly: true as const } : {}),
  };
}
