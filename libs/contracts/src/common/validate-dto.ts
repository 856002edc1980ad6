import { CaError, FieldError } from './ca-error';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validate } from 'class-validator';

/**
 * Validates a DTO's wire shape: its class-validator rules, with unknown fields refused; one
 * FieldError per failing field. The rules across fields are the domain's: services and the gateway
 * validate with libs/domain's `validateDto`, which runs this first.
 */
export async function validateWireDto<T extends object>(type: new () => T, value: unknown): Promise<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw CaError.validation([{ field: 'body', message: 'the request body must be a JSON object' }]);
  }
  const hostile = hostileKeyError(value);
  if (hostile) throw CaError.validation([hostile]);
  const instance = plainToInstance(type, value);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw CaError.validation(flattenValidationErrors(errors));
  return instance;
}

export function flattenValidationErrors(
  errors: ValidationError[],
  parent = '',
): { field: string; message: string }[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

const POLLUTING_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Deeper than any DTO of this API; deeper input would only feed the recursion of the transformer. */
export const MAX_BODY_DEPTH = 16;

/**
 * A `__proto__`/`constructor`/`prototype` key anywhere in a parsed JSON body (named by its full
 * path), or nesting deeper than MAX_BODY_DEPTH (named by the top-level field it is under). The walk
 * itself never goes deeper than MAX_BODY_DEPTH.
 */
function hostileKeyError(value: unknown, path = '', depth = 0): FieldError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_BODY_DEPTH) {
    return { field: path.split('.')[0], message: `nested more than ${MAX_BODY_DEPTH} levels deep` };
  }
  for (const key of Object.keys(value)) {
    const keyPath = path ? `${path}.${key}` : key;
    if (POLLUTING_KEYS.has(key)) return { field: keyPath, message: 'this key is not accepted' };
    const nested = hostileKeyError((value as Record<string, unknown>)[key], keyPath, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}
