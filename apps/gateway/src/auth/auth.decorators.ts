import { ExecutionContext, SetMetadata, createParamDecorator } from '@nestjs/common';
import { AuthenticatedPrincipal, Scope } from './authenticated-principal';

export const PUBLIC_ROUTE = 'ca:public-route';
export const REQUIRED_SCOPE = 'ca:required-scope';

/** A route without a bearer token (health, OpenAPI, pre-signed downloads). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** The scope a route needs (docs/api.md#tokens); missing gets 403. */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

/** The verified caller of this request. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedPrincipal =>
    context.switchToHttp().getRequest().user,
);
