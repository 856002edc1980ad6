import { HttpAnswer } from './http';

export const PROBLEM = /^application\/problem\+json(;|$)/;
export const CATALOG = 'https://errors.ca-manager.dev';

/** docs/api.md#errors: the body of an operation error response. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: string;
  recovery: string;
  requestId: string;
  errors?: { field: string; message: string }[];
}

/**
 * Asserts a Problem Details answer (docs/api.md#errors): the status, the media type, every required member,
 * `errors` only on 400, no stack trace in `detail`, and (unless told otherwise) the request id of
 * the `X-Request-Id` response header. `slug` pins the `type` under the error catalog.
 */
export function expectProblem(
  answer: HttpAnswer,
  status: number,
  code: string,
  slug?: string,
  options: { requestIdHeader?: boolean } = {},
): Problem {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(PROBLEM);
  const problem = answer.json<Problem>();
  expect(problem).toEqual(
    expect.objectContaining({
      type: expect.stringMatching(/^https:\/\//),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code,
      recovery: expect.any(String),
      requestId: expect.any(String),
    }),
  );
  expect(problem.title.length).toBeGreaterThan(0);
  expect(problem.detail.length).toBeGreaterThan(0);
  expect(problem.recovery.length).toBeGreaterThan(0);
  expect(problem.requestId.length).toBeGreaterThan(0);
  if (slug) expect(problem.type).toBe(`${CATALOG}/${slug}`);
  // errors[] only on 400 (docs/api.md#errors); the detail never carries a stack trace.
  if (status !== 400) expect(problem).not.toHaveProperty('errors');
  expect(problem.detail).not.toMatch(/\bat .+\(.*:\d+:\d+\)/);
  // The request id of the problem is the one of the response header.
  if (options.requestIdHeader !== false) expect(answer.headers.get('x-request-id')).toBe(problem.requestId);
  return problem;
}

/** 401 with the RFC 6750 challenge (docs/api.md#tokens). */
export function expectInvalidToken(answer: HttpAnswer, code = 'invalid_token'): void {
  expectProblem(answer, 401, code);
  expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
}

/**
 * The `errors[]` of a validation problem: well-formed entries, each of `fields` named, and (when
 * `fields` is not empty) no other field named.
 */
export function expectFieldErrors(problem: Problem, fields: readonly string[]): void {
  expect(problem.type.startsWith(`${CATALOG}/common/validation-failed`)).toBe(true);
  expect(Array.isArray(problem.errors)).toBe(true);
  expect(problem.errors!.length).toBeGreaterThan(0);
  for (const error of problem.errors!) {
    expect(error).toEqual({ field: expect.any(String), message: expect.any(String) });
    expect(error.message.length).toBeGreaterThan(0);
  }
  const named = new Set(problem.errors!.map((e) => e.field));
  for (const field of fields) expect(named).toContain(field);
  // Only failing fields are named.
  if (fields.length > 0) for (const field of named) expect(fields).toContain(field);
}

/** 400 VALIDATION_FAILED whose `errors[]` names exactly `fields` (see `expectFieldErrors`). */
export function expectValidationProblem(answer: HttpAnswer, fields: readonly string[]): Problem {
  const problem = expectProblem(answer, 400, 'VALIDATION_FAILED');
  expectFieldErrors(problem, fields);
  return problem;
}
