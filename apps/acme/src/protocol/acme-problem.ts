/** The ACME error types this server answers with (RFC 8555 6.7). */
export type AcmeErrorType =
  | 'accountDoesNotExist'
  | 'alreadyReplaced'
  | 'alreadyRevoked'
  | 'badCSR'
  | 'badNonce'
  | 'badPublicKey'
  | 'badRevocationReason'
  | 'badSignatureAlgorithm'
  | 'connection'
  | 'dns'
  | 'externalAccountRequired'
  | 'incorrectResponse'
  | 'invalidContact'
  | 'invalidProfile'
  | 'malformed'
  | 'orderNotReady'
  | 'rateLimited'
  | 'rejectedIdentifier'
  | 'serverInternal'
  | 'tls'
  | 'unauthorized'
  | 'unsupportedIdentifier';

export interface AcmeProblemDocument {
  type: string;
  detail: string;
  status: number;
  /** The admin API's error code (docs/api.md#errors), for a refusal that is not ACME's own. */
  code?: string;
}

/** Thrown anywhere in request handling; the router turns it into application/problem+json. */
export class AcmeProblem extends Error {
  constructor(
    readonly type: AcmeErrorType,
    readonly detail: string,
    readonly status = 400,
    /** Extra headers: Retry-After for rateLimited, Location for a key already in use. */
    readonly headers: Record<string, string> = {},
    /** docs/api.md#errors code, an extension member of the problem (RFC 7807 3.2). */
    readonly code?: string,
  ) {
    super(detail);
    this.name = 'AcmeProblem';
  }

  toDocument(): AcmeProblemDocument {
    return {
      type: `urn:ietf:params:acme:error:${this.type}`,
      detail: this.detail,
      status: this.status,
      ...(this.code ? { code: this.code } : {}),
    };
  }
}

export const malformed = (detail: string) => new AcmeProblem('malformed', detail);
export const unauthorized = (detail: string) => new AcmeProblem('unauthorized', detail, 403);
