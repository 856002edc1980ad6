import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { CaError, ErrorCode } from '@ca/contracts';
import { Response } from 'express';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { RequestWithTenant } from '../tenants/tenant-context';
import { TenantDirectory } from '../tenants/tenant-directory';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './auth.decorators';
import { AuthenticatedPrincipal, Scope } from './authenticated-principal';

/**
 * Global guard, in this order for every route not marked @Public: a valid token (401
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
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    await super.canActivate(context);
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithTenant & { user: AuthenticatedPrincipal }>();
    const response = http.getResponse<Response>();
    const principal = request.user;

    request.tenant = await dependency(() => this.tenants.admit(principal.tenantId));
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
