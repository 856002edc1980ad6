import { NextFunction, Request, Response } from 'express';
import { AuthenticatedPrincipal } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { auditActionOf, auditResourceOf, isAuditedPath } from './audit-action';
import { truncateCharacters } from '../text/text-rules';
import { AuditEntryInput } from './audit-chain';

/** Set by the problem filter: the `code` of an error answer, for the audit entry. */
export const AUDIT_CODE_LOCAL = 'auditCode';
/** Set by the authentication guard: this failure is counted in an aggregate entry, not written alone. */
export const AUDIT_AGGREGATED_LOCAL = 'auditAggregated';
/** Set by the ACME edge: the request asked for no change (docs/api.md#audit-log), so it is not written. */
export const AUDIT_READ_ONLY_LOCAL = 'auditReadOnly';

/** nginx's convention for a request whose client went away before the answer. */
const CLIENT_CLOSED_REQUEST = 499;
/** In characters (code points): a cut never splits one (docs/security.md). */
export const MAX_AUDIT_PRINCIPAL_LENGTH = 256;

/**
 * Records every administrative call once its answer is finished (docs/api.md#audit-log): successes and
 * failures alike, 401s with no tenant. Runs after the request id middleware; reads who called
 * from what the guard verified. Bodies, headers and tokens are never looked at.
 */
export function auditMiddleware(record: (entry: AuditEntryInput) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isAuditedPath(req.path)) return next();
    const occurredAt = new Date();
    const method = req.method;
    const path = req.path;
    let written = false;
    const write = (result: number) => {
      if (written) return;
      written = true;
      if (res.locals[AUDIT_AGGREGATED_LOCAL] === true || res.locals[AUDIT_READ_ONLY_LOCAL] === true) return;
      const principal = (req as Request & { user?: AuthenticatedPrincipal }).user;
      const code = res.locals[AUDIT_CODE_LOCAL];
      record({
        occurredAt,
        tenantId: principal?.tenantId ?? null,
        principal: principal ? truncateCharacters(principal.subject, MAX_AUDIT_PRINCIPAL_LENGTH) : null,
        action: auditActionOf(method, path),
        resource: auditResourceOf(path),
        result,
        code:
          result === CLIENT_CLOSED_REQUEST ? 'CLIENT_CLOSED_REQUEST' : typeof code === 'string' ? code : null,
        requestId: (req as RequestWithId).requestId ?? 'unknown',
      });
    };
    res.on('finish', () => write(res.statusCode));
    res.on('close', () => {
      if (!res.writableFinished) write(CLIENT_CLOSED_REQUEST);
    });
    next();
  };
}
