import { AuthenticatedPrincipal } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';

/** Who asks and under which request id: the part every write command to issuance carries. */
export function writeCommand(principal: AuthenticatedPrincipal, req: RequestWithId) {
  return { tenantId: principal.tenantId, principal: principal.subject, requestId: req.requestId };
}
