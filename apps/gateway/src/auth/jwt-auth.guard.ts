import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { CaError, ErrorCode } from '@ca/contracts';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './auth.decorators';
import { AuthenticatedPrincipal, Scope } from './authenticated-principal';

/**
 * Global guard: every route needs a valid token unless marked @Public, and the scope named by
 * @RequireScope. Failures become CaErrors (401 invalid_token / expired_token, 403).
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    await super.canActivate(context);
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets);
    const principal: AuthenticatedPrincipal = context.switchToHttp().getRequest().user;
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
