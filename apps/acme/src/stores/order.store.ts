import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { prepared } from '@ca/persistence';
import { isUuid } from '@ca/contracts';

export type OrderStatus = 'pending' | 'ready' | 'processing' | 'valid' | 'invalid';
export type AuthorizationStatus = 'pending' | 'valid' | 'invalid' | 'deactivated' | 'expired' | 'revoked';
export type ChallengeStatus = 'pending' | 'processing' | 'valid' | 'invalid';

export interface Order {
  id: string;
  tenantId: string;
  accountId: string;
  status: OrderStatus;
  identifiers: string[];
  expiresAt: Date;
  error?: object;
  certificateId?: string;
  certificatePem?: string;
  /** RFC 9773 5: the tenant's certificate (issuance id) this order's certificate replaces. */
  replaces?: string;
  /** draft-ietf-acme-profiles: the profile chosen (or the tenant's default). */
  profile?: string;
  /** Its authorizations' ids, by identifier, when read with the order. */
  authorizationIds?: string[];
}

export interface Challenge {
  id: string;
  authorizationId: string;
  type: string;
  token: string;
  status: ChallengeStatus;
  validatedAt?: Date;
  error?: object;
}

export interface Authorization {
  id: string;
  orderId: string;
  accountId: string;
  tenantId: string;
  identifier: string;
  status: AuthorizationStatus;
  expiresAt: Date;
  challenges: Challenge[];
}

/**
 * Every statement here is prepared (prepared-statements.ts): each ACME request runs several. Their
 * results name their columns (no `*`), so a column a later migration adds cannot change a result
 * a running replica has prepared.
 */
const ORDER_COLUMNS = `id, tenant_id, account_id, status, identifiers, expires_at, error, certificate_id, certificate_sha256, certificate_pem, created_at, replaces, profile`;
const ORDER_COLUMNS_OF_O = ORDER_COLUMNS.split(', ')
  .map((column) => `o.${column}`)
  .join(', ');

/** RFC 8555 7.1.3/7.1.4: how long a client has to complete an order and its authorizations. */
export const ORDER_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/** RFC 8555 7.1.3, 8.4: a wildcard (`*.name`) can be proved through dns-01 only. */
export function challengeTypesFor(identifier: string): string[] {
  return identifier.startsWith('*.') ? ['dns-01'] : ['dns-01', 'http-01', 'tls-alpn-01'];
}

/* eslint-disable @typescript-eslint/no-explicit-any -- rows as the driver returns them */
const toOrder = (r: any): Order => ({
  id: r.id,
  tenantId: r.tenant_id,
  accountId: r.account_id,
  status: r.status,
  identifiers: r.identifiers,
  expiresAt: r.expires_at,
  error: r.error ?? undefined,
  certificateId: r.certificate_id ?? undefined,
  certificatePem: r.certificate_pem ?? undefined,
  replaces: r.replaces ?? undefined,
  profile: r.profile ?? undefined,
  ...(r.authorization_ids ? { authorizationIds: r.authorization_ids } : {}),
});
const toChallenge = (r: any): Challenge => ({
  id: r.id,
  authorizationId: r.authorization_id,
  type: r.type,
  token: r.token,
  status: r.status,
  validatedAt: r.validated_at ?? undefined,
  error: r.error ?? undefined,
});
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * `acme.orders` with their `authorizations` and `challenges` (one aggregate: an order is created
 * with them in one statement, and a validation moves all three along); every lookup names the
 * tenant, so one tenant never sees another's.
 */
export class OrderStore {
  constructor(private readonly dataSource: DataSource) {}

  async createOrder(
    tenantId: string,
    accountId: string,
    identifiers: string[],
    extra: { replaces?: string; profile?: string } = {},
  ): Promise<Order> {
    const expiresAt = new Date(Date.now() + ORDER_LIFETIME_MS);
    const id = randomUUID();
    const authorizationIds = identifiers.map(() => randomUUID());
    const challenges = identifiers.flatMap((identifier, i) =>
      challengeTypesFor(identifier).map((type) => ({
        id: randomUUID(),
        authorizationId: authorizationIds[i],
        type,
        token: randomBytes(32).toString('base64url'),
      })),
    );
    // One statement (atomic without a transaction): the order, its authorizations, their challenges.
    const [row] = await this.dataSource.query(
      prepared(`WITH o AS (
         INSERT INTO acme.orders (id, tenant_id, account_id, status, identifiers, expires_at, replaces, profile)
         VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7) RETURNING ${ORDER_COLUMNS}
       ), a AS (
         INSERT INTO acme.authorizations (id, order_id, identifier, status, expires_at)
         SELECT unnest($8::uuid[]), $1, unnest($9::text[]), 'pending', $5
       ), c AS (
         INSERT INTO acme.challenges (id, authorization_id, type, token, status)
         SELECT unnest($10::uuid[]), unnest($11::uuid[]), unnest($12::text[]), unnest($13::text[]), 'pending'
       )
       SELECT ${ORDER_COLUMNS} FROM o`),
      [
        id,
        tenantId,
        accountId,
        JSON.stringify(identifiers),
        expiresAt,
        extra.replaces ?? null,
        extra.profile ?? null,
        authorizationIds,
        identifiers,
        challenges.map((c) => c.id),
        challenges.map((c) => c.authorizationId),
        challenges.map((c) => c.type),
        challenges.map((c) => c.token),
      ],
    );
    // Answered in identifier order (code points, as COLLATE "C"), as authorizationIds() reads them.
    const sorted = identifiers.map((identifier, i) => ({ identifier, id: authorizationIds[i] }));
    sorted.sort((x, y) => (x.identifier < y.identifier ? -1 : x.identifier > y.identifier ? 1 : 0));
    return { ...toOrder(row), authorizationIds: sorted.map((a) => a.id) };
  }

  async findOrder(tenantId: string, id: string): Promise<Order | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await this.dataSource.query(
      prepared(`SELECT ${ORDER_COLUMNS_OF_O}, ARRAY(SELECT a.id FROM acme.authorizations a WHERE a.order_id = o.id ORDER BY a.identifier COLLATE "C")
         AS authorization_ids
       FROM acme.orders o WHERE o.tenant_id = $1 AND o.id = $2`),
      [tenantId, id],
    );
    return row ? toOrder(row) : undefined;
  }

  async findOrderByCertificate(tenantId: string, sha256: string): Promise<Order | undefined> {
    const [row] = await this.dataSource.query(
      prepared(`SELECT ${ORDER_COLUMNS} FROM acme.orders WHERE tenant_id = $1 AND certificate_sha256 = $2`),
      [tenantId, sha256],
    );
    return row ? toOrder(row) : undefined;
  }

  /**
   * RFC 8555 7.1.2.1: the account's orders, newest first, without the invalid ones (an unfinished
   * order past its expiry is invalid too).
   */
  async orderIdsOf(accountId: string): Promise<string[]> {
    const rows = await this.dataSource.query(
      prepared(`SELECT id FROM acme.orders WHERE account_id = $1 AND status <> 'invalid'
       AND NOT (status IN ('pending', 'ready') AND expires_at <= now())
       ORDER BY created_at DESC LIMIT 1000`),
      [accountId],
    );
    return rows.map((r: { id: string }) => r.id);
  }

  /** RFC 8555 7.1.6: an unfinished order past its expiry is invalid; recorded when a client acts on it. */
  async expireOrder(orderId: string): Promise<void> {
    await this.dataSource.query(
      prepared(`UPDATE acme.orders SET status = 'invalid' WHERE id = $1 AND status IN ('pending', 'ready')
       AND expires_at <= now()`),
      [orderId],
    );
  }

  /**
   * RFC 8555 7.5.2: a pending or valid authorization deactivated, and its order (pending or ready)
   * invalid with it. False when the authorization was neither.
   */
  async deactivateAuthorization(authorization: Authorization): Promise<boolean> {
    return this.dataSource.transaction(async (tx) => {
      const [rows] = (await tx.query(
        prepared(`UPDATE acme.authorizations SET status = 'deactivated'
         WHERE id = $1 AND status IN ('pending', 'valid') AND expires_at > now() RETURNING id`),
        [authorization.id],
      )) as [unknown[], number];
      if (rows.length !== 1) return false;
      await tx.query(
        prepared(
          `UPDATE acme.orders SET status = 'invalid' WHERE id = $1 AND status IN ('pending', 'ready')`,
        ),
        [authorization.orderId],
      );
      return true;
    });
  }

  /**
   * RFC 8555 7.6: which of `identifiers` the account holds a valid, unexpired authorization for
   * in the tenant (as ordered: a wildcard's is `*.name`).
   */
  async authorizedIdentifiers(tenantId: string, accountId: string, identifiers: string[]): Promise<string[]> {
    const rows = await this.dataSource.query(
      prepared(`SELECT DISTINCT a.identifier FROM acme.authorizations a JOIN acme.orders o ON o.id = a.order_id
       WHERE o.tenant_id = $1 AND o.account_id = $2 AND a.status = 'valid' AND a.expires_at > now()
       AND a.identifier = ANY($3)`),
      [tenantId, accountId, identifiers],
    );
    return rows.map((r: { identifier: string }) => r.identifier);
  }

  /** A finalize that issuance refused for a reason the client can fix, or a transient failure: ready again. */
  async reopenOrder(orderId: string): Promise<void> {
    await this.dataSource.query(
      prepared(`UPDATE acme.orders SET status = 'ready' WHERE id = $1 AND status = 'processing'`),
      [orderId],
    );
  }

  async authorizationIds(orderId: string): Promise<string[]> {
    const rows = await this.dataSource.query(
      prepared('SELECT id FROM acme.authorizations WHERE order_id = $1 ORDER BY identifier COLLATE "C"'),
      [orderId],
    );
    return rows.map((r: { id: string }) => r.id);
  }

  async findAuthorization(tenantId: string, id: string): Promise<Authorization | undefined> {
    if (!isUuid(id)) return undefined;
    return this.authorization('a.id = $2', [tenantId, id]);
  }

  async findChallenge(
    tenantId: string,
    id: string,
  ): Promise<{ challenge: Challenge; authorization: Authorization } | undefined> {
    if (!isUuid(id)) return undefined;
    const authorization = await this.authorization(
      'a.id = (SELECT authorization_id FROM acme.challenges WHERE id = $2)',
      [tenantId, id],
    );
    const challenge = authorization?.challenges.find((c) => c.id === id);
    return authorization && challenge ? { challenge, authorization } : undefined;
  }

  /** One authorization of the tenant with its challenges, in one statement. */
  private async authorization(condition: string, parameters: unknown[]): Promise<Authorization | undefined> {
    const [row] = await this.dataSource.query(
      prepared(`SELECT a.id, a.order_id, a.identifier, a.status, a.expires_at, o.account_id, o.tenant_id,
         (SELECT json_agg(c ORDER BY c.type) FROM acme.challenges c WHERE c.authorization_id = a.id) AS challenges
       FROM acme.authorizations a JOIN acme.orders o ON o.id = a.order_id
       WHERE o.tenant_id = $1 AND ${condition}`),
      parameters,
    );
    if (!row) return undefined;
    const expiresAt = new Date(row.expires_at);
    return {
      id: row.id,
      orderId: row.order_id,
      accountId: row.account_id,
      tenantId: row.tenant_id,
      identifier: row.identifier,
      // RFC 8555 7.1.6: pending and valid authorizations expire.
      status:
        expiresAt < new Date() && (row.status === 'pending' || row.status === 'valid')
          ? 'expired'
          : row.status,
      expiresAt,
      // json_agg gives timestamps as text.
      challenges: ((row.challenges ?? []) as Record<string, unknown>[]).map((c) =>
        toChallenge({ ...c, validated_at: c.validated_at ? new Date(c.validated_at as string) : undefined }),
      ),
    };
  }

  /** pending → processing, once: a second POST does not start a second validation. */
  async startValidation(challengeId: string): Promise<boolean> {
    const [rows] = (await this.dataSource.query(
      prepared(
        `UPDATE acme.challenges SET status = 'processing' WHERE id = $1 AND status = 'pending' RETURNING id`,
      ),
      [challengeId],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  /** processing → pending: a validation that was queued but never run (the service stopped). */
  async abandonValidation(challengeId: string): Promise<void> {
    await this.dataSource.query(
      prepared(`UPDATE acme.challenges SET status = 'pending' WHERE id = $1 AND status = 'processing'`),
      [challengeId],
    );
  }

  /**
   * Records a validation's outcome and moves the authorization and order along
   * (RFC 8555 7.1.6): valid when one challenge is valid; an invalid authorization makes the order invalid;
   * the order is ready once every authorization is valid.
   */
  async finishValidation(
    challenge: Pick<Challenge, 'id'>,
    authorization: Pick<Authorization, 'id' | 'orderId'>,
    error?: object,
    validatedAt = new Date(),
  ): Promise<void> {
    // One statement each way (atomic without a transaction, a quarter of the round trips): its
    // parts all see the rows as they were before it, so the order's check leaves out the
    // authorization this statement makes valid.
    if (error) {
      await this.dataSource.query(
        prepared(`WITH c AS (
           UPDATE acme.challenges SET status = 'invalid', error = $2 WHERE id = $1
         ), a AS (
           UPDATE acme.authorizations SET status = 'invalid' WHERE id = $3 AND status = 'pending'
         )
         UPDATE acme.orders SET status = 'invalid', error = $2 WHERE id = $4 AND status = 'pending'`),
        [challenge.id, error, authorization.id, authorization.orderId],
      );
      return;
    }
    await this.dataSource.query(
      prepared(`WITH c AS (
         UPDATE acme.challenges SET status = 'valid', validated_at = $2 WHERE id = $1
       ), a AS (
         UPDATE acme.authorizations SET status = 'valid' WHERE id = $3 AND status = 'pending' RETURNING id
       )
       UPDATE acme.orders SET status = 'ready' WHERE id = $4 AND status = 'pending'
         AND NOT EXISTS (SELECT 1 FROM acme.authorizations x WHERE x.order_id = $4 AND x.status <> 'valid'
                           AND x.id NOT IN (SELECT id FROM a))`),
      [challenge.id, validatedAt, authorization.id, authorization.orderId],
    );
  }

  /**
   * ready → processing, once (RFC 8555 7.4): a second finalize finds the order no longer ready, nor
   * does one past the order's expiry.
   */
  async startFinalizing(orderId: string): Promise<boolean> {
    const [rows] = (await this.dataSource.query(
      prepared(`UPDATE acme.orders SET status = 'processing'
       WHERE id = $1 AND status = 'ready' AND expires_at > now() RETURNING id`),
      [orderId],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  async finishOrder(
    orderId: string,
    outcome: { certificateId: string; certificatePem: string; sha256: string } | { error: object },
  ): Promise<void> {
    if ('error' in outcome) {
      await this.dataSource.query(
        prepared(`UPDATE acme.orders SET status = 'invalid', error = $2 WHERE id = $1`),
        [orderId, outcome.error],
      );
      return;
    }
    await this.dataSource.query(
      prepared(`UPDATE acme.orders SET status = 'valid', certificate_id = $2, certificate_pem = $3, certificate_sha256 = $4
       WHERE id = $1`),
      [orderId, outcome.certificateId, outcome.certificatePem, outcome.sha256],
    );
  }

  /** Housekeeping: spent nonces, and orders that expired unfinished a day ago (with their authorizations). */
  async pruneExpiredOrders(now = new Date()): Promise<number> {
    const [, count] = (await this.dataSource.query(
      prepared(
        `DELETE FROM acme.orders WHERE status <> 'valid' AND expires_at < $1::timestamptz - interval '1 day'`,
      ),
      [now],
    )) as [unknown[], number];
    return count;
  }
}
