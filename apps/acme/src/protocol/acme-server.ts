import { AcmeHttpRequest, AcmeHttpResponse, CaError, ErrorCode } from '@ca/contracts';
import { isDatabaseUnavailable } from '@ca/persistence';
import { JWK } from 'jose';
import { AcmeProblem, malformed, unauthorized } from './acme-problem';
import { AcmeRateLimiter, AcmeRateLimits } from './acme-rate-limiter';
import { AcmeReply, encodeReply, json, problemReply } from './acme-reply';
import { Account, AccountStore } from '../stores/account.store';
import { AcmeUrls, directoryView } from './acme-views';
import { KnownTenants } from './known-tenants';
import {
  AcmeProtectedHeader,
  FlattenedJws,
  parseFlattenedJws,
  readProtectedHeader,
  verifyJwsSignature,
} from './jws-request';
import { NonceStore } from './nonce-store';

/** A POST whose JWS verified: signed by an account (kid) or by a key it carries (jwk). */
export interface AuthenticatedPost {
  jws: FlattenedJws;
  header: AcmeProtectedHeader;
  payload: string;
  jwk: JWK;
  account?: Account;
}

export interface AcmeRequestContext {
  tenantId: string;
  urls: AcmeUrls;
  request: AcmeHttpRequest;
  /** The URL this request was made to; a JWS `url` must equal it (RFC 8555 6.4). */
  url: string;
}

/** A POST resource: which key it must be signed with, and its handler. */
export interface AcmeResource {
  /** 'jwk': newAccount; 'kid': everything else; 'either': revokeCert (RFC 8555 6.2). */
  key: 'jwk' | 'kid' | 'either';
  handle(ctx: AcmeRequestContext, post: AuthenticatedPost, params: string[]): Promise<AcmeReply>;
}

export interface AcmeServerOptions {
  accounts: AccountStore;
  nonces: NonceStore;
  /** Which tenant segments have an ACME server (a tenant with a CA); every other one is 404. */
  tenants: Pick<KnownTenants, 'has'>;
  /** GATEWAY_PUBLIC_URL: the directory is at {publicUrl}/acme/{tenantId}/directory. */
  publicUrl: string;
  limiter: AcmeRateLimiter;
  limits: AcmeRateLimits;
  /** RFC 9773 4.2: GET {renewalInfo}/{certID}. */
  renewalInfo(tenantId: string, certId: string): Promise<AcmeReply>;
  /** The tenant's ACME profiles, name → description, for the directory's meta. */
  profiles(tenantId: string): Promise<Record<string, string>>;
  /** POST routes: a path pattern (`/order/:id/finalize`) to its resource. */
  resources: [RegExp, AcmeResource][];
  onInternalError(error: unknown, request: AcmeHttpRequest): void;
}

const MAX_BODY_BYTES = 64 * 1024;

/** What the gateway is told besides the answer: who signed, and whether the request was a read. */
interface RequestFacts {
  principal?: string;
  readOnly: boolean;
}

/**
 * One ACME HTTP request (forwarded by the gateway) in, one answer out: routing, the JWS checks of
 * RFC 8555 6.2-6.5 (alg, nonce, url, key, signature), rate limits and problem documents.
 */
export class AcmeServer {
  constructor(private readonly options: AcmeServerOptions) {}

  async handle(request: AcmeHttpRequest): Promise<AcmeHttpResponse> {
    const urls = new AcmeUrls(`${this.options.publicUrl}/acme/${request.tenantId}`);
    let reply: AcmeReply;
    // GET and HEAD change nothing; a POST is known to be a read (POST-as-GET) once its JWS is parsed.
    const facts: RequestFacts = { readOnly: request.method === 'GET' || request.method === 'HEAD' };
    const tenant = { known: false };
    try {
      tenant.known = await this.options.tenants.has(request.tenantId);
      reply = tenant.known ? await this.route(request, urls, facts) : notFound();
    } catch (error) {
      reply = problemReply(asProblem(error, () => this.options.onInternalError(error, request)));
    }
    // Every answer to a POST or newNonce carries a fresh nonce (RFC 8555 6.5); a badNonce one must.
    // A nonce is good only for the tenant it was issued under; a path that is no tenant gets none.
    const nonce =
      !tenant.known || (request.method === 'GET' && !request.path.startsWith('/new-nonce'))
        ? undefined
        : await this.options.nonces.issue(request.tenantId).catch(() => undefined);
    const response = encodeReply(reply, { nonce, indexUrl: tenant.known ? urls.directory() : undefined });
    return {
      ...response,
      ...(facts.principal ? { principal: facts.principal } : {}),
      ...(facts.readOnly ? { readOnly: true as const } : {}),
    };
  }

  private async route(request: AcmeHttpRequest, urls: AcmeUrls, facts: RequestFacts): Promise<AcmeReply> {
    await this.limit(`tenant:${request.tenantId}`, this.options.limits.perTenant, 'tenant');
    await this.limit(
      `source:${request.tenantId}:${request.clientAddress}`,
      this.options.limits.perSource,
      'client address',
    );
    const { method, path } = request;
    if (path === '/directory') {
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed('GET');
      return json(200, directoryView(urls, await this.options.profiles(request.tenantId)));
    }
    if (path.startsWith('/renewal-info/')) {
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed('GET');
      return this.options.renewalInfo(request.tenantId, path.slice('/renewal-info/'.length));
    }
    if (path === '/new-nonce') {
      // RFC 8555 7.2: HEAD answers 200, GET 204.
      if (method === 'HEAD') return { status: 200 };
      if (method === 'GET') return { status: 204 };
      return methodNotAllowed('HEAD, GET');
    }
    for (const [pattern, resource] of this.options.resources) {
      const match = pattern.exec(path);
      if (!match) continue;
      if (method !== 'POST') return methodNotAllowed('POST');
      const ctx: AcmeRequestContext = {
        tenantId: request.tenantId,
        urls,
        request,
        url: `${urls.base}${path}`,
      };
      const post = await this.authenticate(ctx, resource.key, facts);
      if (post.account) {
        facts.principal = `acme:${post.account.id}`;
        await this.limit(`account:${post.account.id}`, this.options.limits.perAccount, 'account');
      }
      return resource.handle(ctx, post, match.slice(1));
    }
    return notFound();
  }

  /** RFC 8555 6.2-6.4, in Boulder's order: shape, alg, nonce, url, key, signature. */
  private async authenticate(
    ctx: AcmeRequestContext,
    key: AcmeResource['key'],
    facts: RequestFacts,
  ): Promise<AuthenticatedPost> {
    const { request } = ctx;
    if (!/^application\/jose\+json\s*(;|$)/i.test(request.contentType ?? '')) {
      throw new AcmeProblem('malformed', 'the Content-Type must be application/jose+json', 415);
    }
    const body = Buffer.from(request.body, 'base64');
    if (body.length > MAX_BODY_BYTES) throw malformed('the request body is too large');
    const jws = parseFlattenedJws(body);
    // RFC 8555 6.3: an empty payload is a POST-as-GET, which no handler lets change anything.
    facts.readOnly = jws.payload === '';
    const header = readProtectedHeader(jws);
    if (!header.nonce || !(await this.options.nonces.consume(ctx.tenantId, header.nonce))) {
      throw new AcmeProblem(
        'badNonce',
        "the nonce is missing, unknown, used, expired or another tenant's; retry with the new one",
      );
    }
    if (header.url !== ctx.url) throw unauthorized(`the JWS url must be ${ctx.url}`);
    let jwk: JWK;
    let account: Account | undefined;
    if (header.jwk) {
      if (key === 'kid') throw malformed('this request must be signed by an account (kid), not a jwk');
      jwk = header.jwk;
    } else {
      if (key === 'jwk') throw malformed('this request must carry the account key (jwk), not a kid');
      const prefix = `${ctx.urls.base}/account/`;
      const id = header.kid!.startsWith(prefix) ? header.kid!.slice(prefix.length) : '';
      account = await this.options.accounts.find(ctx.tenantId, id);
      if (!account)
        throw new AcmeProblem('accountDoesNotExist', 'no account with this kid in this tenant', 400);
      if (account.status !== 'valid') throw unauthorized(`the account is ${account.status}`);
      jwk = account.jwk;
    }
    const payload = await verifyJwsSignature(jws, header, jwk);
    return { jws, header, payload, jwk, account };
  }

  private async limit(key: string, limit: number, what: string): Promise<void> {
    const retryAfter = await this.options.limiter.take(key, limit);
    if (retryAfter !== undefined) {
      throw new AcmeProblem('rateLimited', `too many requests for this ${what}; retry later`, 429, {
        'retry-after': String(retryAfter),
      });
    }
  }
}

/** Errors of issuance (over the bus) and surprises, as ACME problems. */
export function asProblem(error: unknown, onInternal: () => void): AcmeProblem {
  if (error instanceof AcmeProblem) return error;
  if (error instanceof CaError) {
    const detail = error.errors?.length
      ? `${error.message} ${error.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`
      : error.message;
    // Every refusal of the CSR or its key (CSR_*: unreadable, bad signature, a key type not
    // certified, a key that may not be certified again) is the client's CSR to fix.
    if (error.code.startsWith('CSR_')) return new AcmeProblem('badCSR', detail, 400, {}, error.code);
    switch (error.code) {
      case ErrorCode.ValidationFailed:
        return new AcmeProblem('badCSR', detail);
      case ErrorCode.NameNotAllowedByPolicy:
        // The policy changed since the order was made (RFC 8555 6.7: the server will not issue for it).
        return new AcmeProblem('rejectedIdentifier', detail, 400, {}, error.code);
      case ErrorCode.IssuingCaRevoked:
        // Not the client's doing nor a fault: the tenant's administrator must add a new issuing CA.
        return new AcmeProblem(
          'unauthorized',
          "this tenant's issuing CA is revoked: nothing is issued until its administrator adds a new issuing CA",
          403,
          {},
          error.code,
        );
      case ErrorCode.NotFound:
        return new AcmeProblem('malformed', detail, 404);
      case ErrorCode.Forbidden:
      case ErrorCode.CertificateLimitReached:
        return new AcmeProblem('unauthorized', detail, 403);
      case ErrorCode.UsageNotAllowedByPolicy:
        // RFC 8555 6.7 unauthorized: the tenant, not one identifier, may have no server
        // certificate (docs/api.md#issuance-policy allowedUsages without Server).
        return new AcmeProblem('unauthorized', detail, 403, {}, ErrorCode.UsageNotAllowedByPolicy);
      case ErrorCode.RateLimited:
        return new AcmeProblem('rateLimited', detail, 429, { 'retry-after': '60' });
      case ErrorCode.IssuingCaPending:
        // docs/api.md#external-root: nothing is signed until the corporate root's certificate is uploaded.
        return new AcmeProblem('serverInternal', detail, 409, {}, ErrorCode.IssuingCaPending);
      case ErrorCode.ServiceUnavailable:
        return new AcmeProblem('serverInternal', detail, 503, { 'retry-after': '5' });
      default:
        break;
    }
  }
  onInternal();
  // The acme schema (nonces, accounts, orders) out of reach is an outage to retry, not a fault of
  // the request: 503 with Retry-After, as the admin API answers (RFC 9110 15.6.4).
  if (isDatabaseUnavailable(error))
    return new AcmeProblem('serverInternal', 'the service cannot reach its database; retry later', 503, {
      'retry-after': '5',
    });
  return new AcmeProblem('serverInternal', 'an unexpected error occurred', 500);
}

const notFound = (): AcmeReply => problemReply(new AcmeProblem('malformed', 'no such ACME resource', 404));
const methodNotAllowed = (allow: string): AcmeReply => ({
  ...problemReply(new AcmeProblem('malformed', `use ${allow}`, 405)),
  headers: { allow },
});
