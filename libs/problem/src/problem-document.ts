import { CaError, FieldError } from '@ca/contracts';
import { PROBLEM_CATALOG } from './problem-catalog';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** docs/api.md#errors: the body of every error of the administrative API (RFC 9457 plus code/recovery/requestId). */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: string;
  recovery: string;
  requestId: string;
  errors?: FieldError[];
}

export interface ProblemContext {
  catalogUrl: string;
  requestId: string;
  instance?: string;
}

export function toProblemDocument(error: CaError, context: ProblemContext): ProblemDocument {
  const problem = PROBLEM_CATALOG[error.code];
  const document: ProblemDocument = {
    type: `${context.catalogUrl}/${problem.path}`,
    title: problem.title,
    status: problem.status,
    detail: error.message,
    code: error.code,
    recovery: problem.recovery,
    requestId: context.requestId,
  };
  if (context.instance) document.instance = context.instance;
  // `errors` appears on 400 validation failures only (docs/api.md#errors).
  if (problem.status === 400) document.errors = error.errors ?? [];
  return document;
}
