import { FieldError } from '@ca/contracts';
import { textProblem } from './text-rules';

/** Fields that hold PEM (RFC 7468): lines end in CR LF or LF. */
const MULTI_LINE_FIELD = /Pem$/;
/** Reported at most; one bad field is enough to refuse, a few help the caller fix them together. */
const MAX_ERRORS = 10;

/**
 * Every string (values and keys) of a parsed JSON body that is not acceptable text, named by its
 * dotted path as validateDto names fields (`subjectAlternativeNames.0`). Depth is bounded by
 * validateDto's own limit; this walk stops at the same depth.
 */
export function textFieldErrors(value: unknown, path = '', depth = 0): FieldError[] {
  const errors: FieldError[] = [];
  walk(value, path, depth, errors);
  return errors;
}

function walk(value: unknown, path: string, depth: number, errors: FieldError[]): void {
  if (errors.length >= MAX_ERRORS || depth > 16) return;
  if (typeof value === 'string') {
    const field = path || 'body';
    const multiLine = MULTI_LINE_FIELD.test(field.split('.').pop() ?? '');
    const problem = textProblem(value, { multiLine });
    if (problem) errors.push({ field, message: `${field} ${problem}` });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, nested] of Object.entries(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem) {
      errors.push({ field: path || 'body', message: `a key ${keyProblem}` });
      continue;
    }
    walk(nested, path ? `${path}.${key}` : key, depth + 1, errors);
  }
}
