import { ExecutionContext, createParamDecorator } from '@nestjs/common';

/** The calling tenant as the gateway admitted it: active, with its effective plan limit. */
export interface TenantContext {
  tenantId: string;
  /** The most Active certificates it may hold (its own limit or DEFAULT_CERTIFICATE_LIMIT). */
  certificateLimit: number;
}

export interface RequestWithTenant {
  tenant?: TenantContext;
}

/** The admitted tenant of this request (set by the auth guard). */
export const CurrentTenant = createParamDecorator(
  (_data: unknown, context: ExecutionContext): TenantContext =>
    context.switchToHttp().getRequest<RequestWithTenant>().tenant!,
);
