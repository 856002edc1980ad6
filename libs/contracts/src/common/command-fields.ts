import { CaError, FieldError } from './ca-error';
import { TenantId, isUuid, parseTenantId } from './ids';

// C0 and C1 controls and DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_PRINCIPAL_LENGTH = 1024;

export type CommandFieldKind = 'uuid' | 'principal' | 'optionalText';

/**
 * Checks the fields a command carries beside its validated `request` (tenant, principal, ids): the
 * owning service never trusts its caller to have filled them in, and a missing principal would
 * leave a state change without its author. Throws VALIDATION_FAILED naming each bad field.
 */
export function assertCommandFields(command: unknown, fields: Record<string, CommandFieldKind>): void {
  if (typeof command !== 'object' || command === null || Array.isArray(command)) {
    throw CaError.validation([{ field: 'body', message: 'the command must be an object' }]);
  }
  const values = command as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const [field, kind] of Object.entries(fields)) {
    const problem = fieldProblem(values[field], kind);
    if (problem) errors.push({ field, message: problem });
  }
  if (errors.length > 0) throw CaError.validation(errors);
}

function fieldProblem(value: unknown, kind: CommandFieldKind): string | undefined {
  switch (kind) {
    case 'uuid':
      return isUuid(value) ? undefined : 'must be a UUID';
    case 'principal':
      return typeof value === 'string' &&
        value.length > 0 &&
        value.length <= MAX_PRINCIPAL_LENGTH &&
        !CONTROL.test(value)
        ? undefined
        : `must be the caller's principal (1 to ${MAX_PRINCIPAL_LENGTH} characters, no control characters)`;
    case 'optionalText':
      return value === undefined || (typeof value === 'string' && value.length <= MAX_PRINCIPAL_LENGTH)
        ? undefined
        : `must be text of at most ${MAX_PRINCIPAL_LENGTH} characters`;
  }
}

/**
 * A command's tenant, checked and lower-cased once where a service takes the command in:
 * VALIDATION_FAILED on `tenantId` when it is no UUID.
 */
export function commandTenantId(command: { tenantId?: unknown } | null | undefined): TenantId {
  const tenantId = parseTenantId(command?.tenantId);
  if (!tenantId) throw CaError.validation([{ field: 'tenantId', message: 'must be a UUID' }]);
  return tenantId;
}
