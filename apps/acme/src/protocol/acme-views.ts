import { Account } from '../stores/account.store';
import { Authorization, Challenge, Order } from '../stores/order.store';

/** The URLs of one tenant's ACME resources (RFC 8555 7.1), under GATEWAY_PUBLIC_URL/acme/{tenantId}. */
export class AcmeUrls {
  constructor(readonly base: string) {}
  directory = () => `${this.base}/directory`;
  newNonce = () => `${this.base}/new-nonce`;
  newAccount = () => `${this.base}/new-account`;
  newOrder = () => `${this.base}/new-order`;
  revokeCert = () => `${this.base}/revoke-cert`;
  keyChange = () => `${this.base}/key-change`;
  renewalInfo = () => `${this.base}/renewal-info`;
  account = (id: string) => `${this.base}/account/${id}`;
  orders = (accountId: string) => `${this.base}/account/${accountId}/orders`;
  order = (id: string) => `${this.base}/order/${id}`;
  finalize = (id: string) => `${this.base}/order/${id}/finalize`;
  certificate = (orderId: string) => `${this.base}/cert/${orderId}`;
  authorization = (id: string) => `${this.base}/authz/${id}`;
  challenge = (id: string) => `${this.base}/challenge/${id}`;
}

/** An order still pending or ready past its `expires`: invalid (RFC 8555 7.1.6). */
export const isExpiredUnfinished = (order: Order, now = new Date()) =>
  (order.status === 'pending' || order.status === 'ready') && order.expiresAt <= now;

/** `profiles`: name → description (draft-ietf-acme-profiles), left out when the tenant has none. */
export function directoryView(urls: AcmeUrls, profiles: Record<string, string> = {}) {
  return {
    newNonce: urls.newNonce(),
    newAccount: urls.newAccount(),
    newOrder: urls.newOrder(),
    revokeCert: urls.revokeCert(),
    keyChange: urls.keyChange(),
    renewalInfo: urls.renewalInfo(),
    meta: {
      externalAccountRequired: true,
      ...(Object.keys(profiles).length > 0 ? { profiles } : {}),
    },
  };
}

export function accountView(urls: AcmeUrls, account: Account) {
  return { status: account.status, contact: account.contact, orders: urls.orders(account.id) };
}

export function orderView(urls: AcmeUrls, order: Order, authorizationIds: string[]) {
  // RFC 8555 7.1.6: an order not yet finalized becomes invalid at its expiry.
  const status = isExpiredUnfinished(order) ? 'invalid' : order.status;
  return {
    status,
    expires: order.expiresAt.toISOString(),
    identifiers: order.identifiers.map((value) => ({ type: 'dns', value })),
    authorizations: authorizationIds.map(urls.authorization),
    finalize: urls.finalize(order.id),
    ...(order.status === 'valid' ? { certificate: urls.certificate(order.id) } : {}),
    ...(order.error ? { error: order.error } : {}),
  };
}

export function challengeView(urls: AcmeUrls, challenge: Challenge) {
  return {
    type: challenge.type,
    url: urls.challenge(challenge.id),
    token: challenge.token,
    status: challenge.status,
    ...(challenge.validatedAt ? { validated: challenge.validatedAt.toISOString() } : {}),
    ...(challenge.error ? { error: challenge.error } : {}),
  };
}

/** RFC 8555 7.1.4: a wildcard's authorization names the domain without `*.` and says `wildcard`. */
export function authorizationView(urls: AcmeUrls, authorization: Authorization) {
  const wildcard = authorization.identifier.startsWith('*.');
  return {
    status: authorization.status,
    expires: authorization.expiresAt.toISOString(),
    identifier: {
      type: 'dns',
      value: wildcard ? authorization.identifier.slice(2) : authorization.identifier,
    },
    ...(wildcard ? { wildcard: true } : {}),
    challenges: authorization.challenges.map((c) => challengeView(urls, c)),
  };
}
