import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { CaError, ErrorCode } from '@ca/contracts';
import { Request, Response } from 'express';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { TenantDirectory } from '../tenants/tenant-directory';
import { AUDIT_AGGREGATED_LOCAL } from '../audit/audit.middleware';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './auth.decorators';
import { AuthenticatedPrincipal, Scope } from './authenticated-principal';
import { clientAddressOf } from '@ca/runtime';

/**
 * Global guard, in this order for every route not marked @Public: the source address not past its
 * failed-authentication limit (429 with Retry-After), a valid token (401
 * invalid_token / expired_token), the token's tenant admitted (403 when suspended), the tenant's
 * rate limit counted (429 with Retry-After; RateLimit-* headers on every answer from here on),
 * then the scope named by @RequireScope (403).
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly tenants: TenantDirectory,
    private readonly rateLimiter: RateLimiter,
    private readonly authFailures: AuthFailureLimiter,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { user: AuthenticatedPrincipal }>();
    const response = http.getResponse<Response>();
    await this.authenticate(context, clientAddressOf(request), response);
    const principal = request.user;

    await dependency(() => this.tenants.admit(principal.tenantId));
    const decision = await dependency(() => this.rateLimiter.consume(principal.tenantId));
    response.set(decision.headers);
    if (!decision.allowed) {
      response.set('Retry-After', String(decision.retryAfterSeconds));
      throw new CaError(
        ErrorCode.RateLimited,
        `This tenant has made more than ${this.rateLimiter.limitPerMinute} requests in the current minute.`,
      );
    }

    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets);
    if (scope && !principal.scopes.includes(scope)) {
      throw new CaError(ErrorCode.Forbidden, `The token does not grant the scope ${scope}.`);
    }
    return true;
  }

  /**
   * Verifies the token unless the source address has failed too often this minute (RFC 6585 4:
   * 429 with Retry-After; no WWW-Authenticate, which RFC 6750 3 ties to a 401). Every failure is
   * counted; all but the first of a minute are audited in the limiter's summary entry.
   */
  private async authenticate(context: ExecutionContext, address: string, response: Response): Promise<void> {
    const gate = this.authFailures.check(address);
    if (gate.throttled) {
      if (!this.authFailures.recordFailure(address, true)) response.locals[AUDIT_AGGREGATED_LOCAL] = true;
      response.set('Retry-After', String(gate.retryAfterSeconds));
      throw new CaError(
        ErrorCode.RateLimited,
        `More than ${this.authFailures.limitPerMinute} failed authentications from this address in the current minute.`,
      );
    }
    try {
      await super.canActivate(context);
    } catch (error) {
      if (!this.authFailures.recordFailure(address, false)) response.locals[AUDIT_AGGREGATED_LOCAL] = true;
      throw error;
    }
  }

  override handleRequest<T>(error: unknown, user: T, info: unknown): T {
    const failure = error ?? info;
    if (failure instanceof CaError) throw failure;
    if (failure || !user) throw new CaError(ErrorCode.InvalidToken, 'A valid bearer token is required.');
    return user;
  }
}

/** The gateway's own database not answering is a 503, not an unexplained 500. */
async function dependency<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CaError) throw error;
    const unavailable = new CaError(ErrorCode.ServiceUnavailable, 'The service is temporarily unavailable.');
    unavailable.cause = error; // logged by the problem filter, never shown
    throw unavailable;
  }
}
