import { createHash, createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import { IssuanceApi, IssuancePattern, RevocationReasonCode } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { csrRequestedNames, parseCertificationRequest, pemToDer, publicKeyObjectOfSpki } from '@ca/pki';
import { AcmeProblem, malformed, unauthorized } from './acme-problem';
import { AcmeRateLimiter } from './acme-rate-limiter';
import { json } from './acme-reply';
import { AcmeResource, asProblem } from './acme-server';
import { AccountStore } from '../stores/account.store';
import { Order, OrderStore } from '../stores/order.store';
import { ACME_ORGANIZATIONAL_UNIT, acmeCommonName } from './certificate-subject';
import { AcmeUrls, authorizationView, challengeView, isExpiredUnfinished, orderView } from './acme-views';
import { PolicyLookup, nameAllowed, readIdentifiers } from './identifier-policy';
import { jsonPayload, keyThumbprint, postAsGet, thumbprint } from './jws-request';
import { ValidationRunner } from '../validation/validation-runner';
import { replacedCertificate } from './renewal-info';
import { AcmeProfiles } from '../profiles/acme-profiles';

/** ACME certificates are TLS server certificates of 90 days (docs/api.md#acme). */
export const ACME_VALIDITY_DAYS = 90;

export interface OrderResourceDeps {
  orders: OrderStore;
  accounts: AccountStore;
  issuance: RpcClient<IssuanceApi>;
  policy: PolicyLookup;
  limiter: AcmeRateLimiter;
  newOrdersPerAccount: number;
  /** The background validations (RFC 8555 7.5.1): whether one more fits, and starting one. */
  validations: Pick<ValidationRunner, 'hasRoom' | 'start'>;
  /** How long a challenge POST waits for its validation (default INLINE_VALIDATION_MS). */
  inlineValidationMs?: number;
  /** docs/api.md#acme-profiles */
  profiles: Pick<AcmeProfiles, 'forOrder'>;
  onInternalError(error: unknown): void;
}

async function ownOrder(orders: OrderStore, tenantId: string, accountId: string, id: string): Promise<Order> {
  const order = await orders.findOrder(tenantId, id);
  if (!order) throw new AcmeProblem('malformed', 'no such order', 404);
  if (order.accountId !== accountId) throw unauthorized('this order belongs to another account');
  return order;
}

async function orderReply(orders: OrderStore, urls: AcmeUrls, order: Order, status = 200) {
  return json(
    status,
    orderView(urls, order, order.authorizationIds ?? (await orders.authorizationIds(order.id))),
    {
      location: urls.order(order.id),
    },
  );
}

/** RFC 8555 7.4: a new order, its names checked against the tenant's policy. */
export function newOrderResource(deps: OrderResourceDeps): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post) {
      const payload = jsonPayload(post.payload);
      if (payload.notBefore !== undefined || payload.notAfter !== undefined) {
        throw malformed(
          "notBefore and notAfter are not supported; the validity is the profile's (90 days by default)",
        );
      }
      const identifiers = readIdentifiers(payload.identifiers, await deps.policy(ctx.tenantId));
      if (payload.profile !== undefined && typeof payload.profile !== 'string') {
        throw malformed('profile must be the name of one of the directory meta.profiles');
      }
      const profile = await deps.profiles.forOrder(ctx.tenantId, payload.profile);
      if (payload.profile !== undefined && !profile) {
        throw new AcmeProblem('invalidProfile', `no profile named "${payload.profile}" in the directory`);
      }
      const replaces =
        payload.replaces === undefined
          ? undefined
          : await replacedCertificate(deps, ctx.tenantId, post.account!.id, payload.replaces, identifiers);
      const retryAfter = await deps.limiter.take(`orders:${post.account!.id}`, deps.newOrdersPerAccount);
      if (retryAfter !== undefined) {
        throw new AcmeProblem('rateLimited', 'too many new orders for this account; retry later', 429, {
          'retry-after': String(retryAfter),
        });
      }
      const order = await deps.orders.createOrder(ctx.tenantId, post.account!.id, identifiers, {
        ...(replaces ? { replaces } : {}),
        ...(profile ? { profile: profile.name } : {}),
      });
      return orderReply(deps.orders, ctx.urls, order, 201);
    },
  };
}

export function orderResource(deps: OrderResourceDeps): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post, [id]) {
      postAsGet(post.payload);
      return orderReply(
        deps.orders,
        ctx.urls,
        await ownOrder(deps.orders, ctx.tenantId, post.account!.id, id),
      );
    },
  };
}

/** RFC 8555 7.5: POST-as-GET reads the authorization; 7.5.2: `{"status": "deactivated"}` deactivates it. */
export function authorizationResource(deps: OrderResourceDeps): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post, [id]) {
      const authorization = await deps.orders.findAuthorization(ctx.tenantId, id);
      if (!authorization) throw new AcmeProblem('malformed', 'no such authorization', 404);
      if (authorization.accountId !== post.account!.id)
        throw unauthorized('this authorization belongs to another account');
      if (post.payload !== '') {
        const payload = jsonPayload(post.payload);
        if (payload.status !== 'deactivated' || Object.keys(payload).length !== 1) {
          throw malformed('an authorization takes POST-as-GET, or {"status": "deactivated"}');
        }
        if (
          authorization.status !== 'deactivated' &&
          !(await deps.orders.deactivateAuthorization(authorization))
        ) {
          throw malformed(
            `the authorization is ${authorization.status}; only a pending or valid one is deactivated`,
          );
        }
        authorization.status = 'deactivated';
      }
      return json(200, authorizationView(ctx.urls, authorization), { location: ctx.urls.authorization(id) });
    },
  };
}

/** How long a challenge POST waits for its validation before answering `processing` (ms). */
export const INLINE_VALIDATION_MS = 3_000;

/** The promise's value if it settles within `ms`; undefined otherwise (it keeps running). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * RFC 8555 7.5.1: a POST of `{}` validates the challenge and answers its final state when the
 * validation ends within INLINE_VALIDATION_MS; POST-as-GET reads the challenge.
 */
export function challengeResource(deps: OrderResourceDeps): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post, [id]) {
      const found = await deps.orders.findChallenge(ctx.tenantId, id);
      if (!found) throw new AcmeProblem('malformed', 'no such challenge', 404);
      const { challenge, authorization } = found;
      if (authorization.accountId !== post.account!.id)
        throw unauthorized('this challenge belongs to another account');
      if (post.payload !== '') {
        jsonPayload(post.payload);
        if (authorization.status !== 'pending') {
          if (authorization.status !== 'valid')
            throw malformed(`the authorization is ${authorization.status}`);
        } else if (challenge.status === 'pending') {
          // Only names the tenant's policy allows (now) are validated: the validator connects out.
          const allowedDnsSuffixes = await deps.policy(ctx.tenantId);
          if (!nameAllowed(authorization.identifier, allowedDnsSuffixes)) {
            throw new AcmeProblem(
              'rejectedIdentifier',
              `${authorization.identifier} is outside this tenant's issuance policy`,
            );
          }
          if (!deps.validations.hasRoom()) {
            throw new AcmeProblem('serverInternal', 'too many validations are waiting; retry shortly', 503, {
              'retry-after': '5',
            });
          }
          if (await deps.orders.startValidation(challenge.id)) {
            challenge.status = 'processing';
            const outcome = deps.validations.start({
              tenantId: ctx.tenantId,
              challenge,
              authorization,
              keyAuthorization: `${challenge.token}.${await thumbprint(post.account!.jwk)}`,
              allowedDnsSuffixes,
            });
            // RFC 8555 7.5.1: the answer may be the final state. A validation that ends within
            // the budget is answered as it ended (the client need not poll); a longer one keeps
            // running and the answer is `processing`, with Retry-After.
            const ended = await within(outcome, deps.inlineValidationMs ?? INLINE_VALIDATION_MS);
            if (ended) Object.assign(challenge, ended);
          }
        }
      }
      return json(200, challengeView(ctx.urls, challenge), {
        links: [`<${ctx.urls.authorization(authorization.id)}>;rel="up"`],
        location: ctx.urls.challenge(challenge.id),
        ...(challenge.status === 'processing' ? { headers: { 'retry-after': '1' } } : {}),
      });
    },
  };
}

/** RFC 8555 7.4: the CSR must name exactly the order's identifiers; issuance signs as for the admin API. */
export function finalizeResource(deps: OrderResourceDeps): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post, [id]) {
      const account = post.account!;
      const order = await ownOrder(deps.orders, ctx.tenantId, account.id, id);
      const payload = jsonPayload(post.payload);
      if (isExpiredUnfinished(order)) {
        // RFC 8555 7.1.6, 7.4: past `expires` the order is invalid, hence not ready.
        await deps.orders.expireOrder(order.id);
        throw new AcmeProblem('orderNotReady', `the order expired at ${order.expiresAt.toISOString()}`, 403);
      }
      if (order.status !== 'ready') {
        throw new AcmeProblem('orderNotReady', `the order is ${order.status}, not ready`, 403);
      }
      if (typeof payload.csr !== 'string' || !/^[A-Za-z0-9_-]+$/.test(payload.csr)) {
        throw malformed('csr must be the base64url DER of a PKCS#10 request');
      }
      const csr = await checkedCsr(Buffer.from(payload.csr, 'base64url'), order.identifiers);
      const subjectPublicKey = csr.spki;
      // RFC 8555 11.1: the certificate key must not be an account key (this one's or another's).
      const csrThumbprint = csr.key && (await keyThumbprint(csr.key));
      if (csrThumbprint && (await deps.accounts.findByThumbprint(ctx.tenantId, csrThumbprint))) {
        throw new AcmeProblem('badCSR', "the CSR's key is an ACME account key; use a key of its own");
      }
      if (!(await deps.orders.startFinalizing(order.id))) {
        throw new AcmeProblem('orderNotReady', 'the order is being finalized already', 403);
      }
      try {
        // The profile may have been deleted since: the order then gets today's certificate.
        const profile = order.profile ? await deps.profiles.forOrder(ctx.tenantId, order.profile) : undefined;
        const commonName = acmeCommonName(order.identifiers);
        const issued = await deps.issuance.send(IssuancePattern.IssueAcmeCertificate, {
          tenantId: ctx.tenantId,
          principal: `acme:${account.id}`,
          subjectPublicKey: { format: 'spki', der: subjectPublicKey.toString('base64') },
          // No identifier fits in a CN: the subject has none (docs/api.md#acme-certificate-profile).
          ...(commonName === undefined ? { withoutCommonName: true } : {}),
          // RFC 9773 5: issuance records the succession (and refuses a second successor).
          ...(order.replaces ? { replaces: order.replaces } : {}),
          request: {
            clientId: `acme:${account.id}`,
            // O and C: the signing CA's, set by issuance as it signs.
            ...(commonName === undefined ? {} : { commonName }),
            organizationalUnit: ACME_ORGANIZATIONAL_UNIT,
            validityDays: profile?.validityDays ?? ACME_VALIDITY_DAYS,
            usage: profile?.usage ?? 'Server',
            subjectAlternativeNames: order.identifiers,
          },
        });
        // RFC 8555 9.1: the leaf, then issuer certificates. A leaf the root signed directly is
        // followed by the root: clients such as certbot refuse a chain of one certificate.
        const chainPem = issued.chainPem.trim() || issued.caCertificatePem.trim();
        const certificatePem = `${issued.certificatePem.trim()}\n${chainPem}\n`;
        await deps.orders.finishOrder(order.id, {
          certificateId: issued.certificateId,
          certificatePem,
          sha256: createHash('sha256').update(pemToDer(issued.certificatePem)).digest('hex'),
        });
      } catch (error) {
        await deps.orders.reopenOrder(order.id);
        if (order.replaces && (error as { code?: string }).code === 'CONFLICT') {
          throw new AcmeProblem(
            'alreadyReplaced',
            'the certificate this order replaces was replaced already',
            409,
          );
        }
        throw asProblem(error, () => deps.onInternalError(error));
      }
      return orderReply(deps.orders, ctx.urls, (await deps.orders.findOrder(ctx.tenantId, order.id))!);
    },
  };
}

/**
 * The CSR's key, once it is read, its signature verifies and it names exactly the order's
 * identifiers: its SubjectPublicKeyInfo, and the key made from it once for the signature and the
 * thumbprint (undefined when it cannot be made: the signature's check then goes its own way).
 */
async function checkedCsr(der: Buffer, identifiers: string[]): Promise<{ spki: Buffer; key?: KeyObject }> {
  let csr;
  let names;
  try {
    csr = parseCertificationRequest(der);
    names = csrRequestedNames(der);
  } catch (error) {
    throw new AcmeProblem('badCSR', `the CSR cannot be read: ${(error as Error).message}`);
  }
  const spki = Buffer.from(csr.subjectPublicKeyInfo);
  let key: KeyObject | undefined;
  try {
    key = publicKeyObjectOfSpki(spki);
  } catch {
    key = undefined;
  }
  if (!(await csr.verifySignature(key))) throw new AcmeProblem('badCSR', 'the CSR signature does not verify');
  if (names.otherNames > 0) throw new AcmeProblem('badCSR', 'the CSR may ask for DNS names only');
  const requested = new Set(names.dnsNames.map((n) => n.toLowerCase()));
  if (names.commonName) requested.add(names.commonName.toLowerCase());
  const wanted = new Set(identifiers);
  if (requested.size !== wanted.size || [...requested].some((n) => !wanted.has(n))) {
    throw new AcmeProblem(
      'badCSR',
      `the CSR must name exactly the order's identifiers: ${identifiers.join(', ')}`,
    );
  }
  return { spki, key };
}

/** RFC 8555 7.1.3: the certificate chain, leaf first. */
export function certificateResource(deps: OrderResourceDeps): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post, [id]) {
      postAsGet(post.payload);
      const order = await ownOrder(deps.orders, ctx.tenantId, post.account!.id, id);
      if (order.status !== 'valid' || !order.certificatePem) {
        throw new AcmeProblem('malformed', 'the order has no certificate', 404);
      }
      return json(200, order.certificatePem, { contentType: 'application/pem-certificate-chain' });
    },
  };
}

/** RFC 5280 5.3.1 reason numbers revokeCert accepts, by the admin API's names. */
const REASONS: Record<number, RevocationReasonCode> = {
  0: 'Unspecified',
  1: 'KeyCompromise',
  3: 'AffiliationChanged',
  4: 'Superseded',
  5: 'CessationOfOperation',
  9: 'PrivilegeWithdrawn',
};

/**
 * RFC 8555 7.6: by the account that ordered it or one holding valid authorizations for all its
 * names (kid), or by the certificate's own key (jwk).
 */
export function revokeCertResource(deps: OrderResourceDeps): AcmeResource {
  return {
    key: 'either',
    async handle(ctx, post) {
      const payload = jsonPayload(post.payload);
      if (typeof payload.certificate !== 'string' || !/^[A-Za-z0-9_-]+$/.test(payload.certificate)) {
        throw malformed('certificate must be the base64url DER of the certificate');
      }
      const reason = payload.reason ?? 0;
      const reasonCode = typeof reason === 'number' ? REASONS[reason] : undefined;
      if (!reasonCode) throw new AcmeProblem('badRevocationReason', 'reason must be 0, 1, 3, 4, 5 or 9');
      const der = Buffer.from(payload.certificate, 'base64url');
      const order = await deps.orders.findOrderByCertificate(
        ctx.tenantId,
        createHash('sha256').update(der).digest('hex'),
      );
      if (!order?.certificateId)
        throw unauthorized('this certificate was not issued through ACME in this tenant');
      let principal: string;
      if (post.account) {
        if (order.accountId !== post.account.id) {
          const held = await deps.orders.authorizedIdentifiers(
            ctx.tenantId,
            post.account.id,
            order.identifiers,
          );
          if (held.length !== order.identifiers.length) {
            throw unauthorized(
              'this account neither ordered the certificate nor holds valid authorizations for all its names',
            );
          }
        }
        principal = `acme:${post.account.id}`;
      } else {
        const certificateKey = new X509Certificate(der).publicKey.export({ type: 'spki', format: 'der' });
        let signingKey: Buffer;
        try {
          signingKey = createPublicKey({ key: post.jwk as never, format: 'jwk' }).export({
            type: 'spki',
            format: 'der',
          });
        } catch {
          throw new AcmeProblem('badPublicKey', 'the jwk cannot be read');
        }
        if (!signingKey.equals(certificateKey))
          throw unauthorized('the JWS is not signed by the certificate key');
        principal = `acme:${order.accountId}`;
      }
      try {
        await deps.issuance.send(IssuancePattern.RevokeCertificate, {
          tenantId: ctx.tenantId,
          principal,
          certificateId: order.certificateId,
          request: { reason: 'Revoked through ACME (RFC 8555 7.6)', reasonCode },
        });
      } catch (error) {
        const problem = asProblem(error, () => deps.onInternalError(error));
        const code = (error as { code?: string }).code;
        if (code === 'CONFLICT')
          throw new AcmeProblem('alreadyRevoked', 'the certificate is revoked already');
        throw problem;
      }
      return { status: 200 };
    },
  };
}
