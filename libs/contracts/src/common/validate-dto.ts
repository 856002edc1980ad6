import { CaError } from './ca-error';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validate } from 'class-validator';

/**
 * Validates a DTO with its class-validator rules and unknown fields refused; one FieldError per
 * failing field. The gateway uses it on request bodies, and the owning service again on commands
 * (defence in depth: a service never trusts its caller to have validated).
 */
export async function validateDto<T extends object>(type: new () => T, value: unknown): Promise<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw CaError.validation([{ field: 'body', message: 'the request body must be a JSON object' }]);
  }
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
