import { Problem } from './api-client';

const sentence = (text: string) => text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');

/**
 * One line for a person: status and code, what went wrong, which fields, what to do next.
 * e.g. `error: 400 VALIDATION_FAILED: The request is invalid (country: …). Fix … [request 1f…]`
 */
export function problemLine(status: number, problem: Problem): string {
  const code = problem.code ? ` ${problem.code}` : '';
  const what = sentence(problem.detail ?? problem.title ?? 'request failed');
  const fields = problem.errors?.length
    ? ` (${problem.errors.map((e) => `${e.field}: ${sentence(e.message)}`).join('; ')})`
    : '';
  const next = problem.recovery ? ` ${sentence(problem.recovery)}.` : '';
  const id = problem.requestId ? ` [request ${problem.requestId}]` : '';
  return `error: ${status}${code}: ${what}${fields}.${next}${id}`;
}
