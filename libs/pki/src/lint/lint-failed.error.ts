import { CaError, ErrorCode } from '@ca/contracts';
import { lintMetrics } from '@ca/observability';
import type { LintFinding } from './lint';

/**
 * Refuses to sign: a CaError (CERTIFICATE_LINT_FAILED) naming each failed lint in `errors[]`,
 * after counting each in `ca_lint_failures_total{lint}`. Nothing has been signed when it is thrown.
 */
export function lintFailed(what: string, findings: readonly LintFinding[]): CaError {
  for (const { lint } of findings) lintMetrics.failed(lint);
  return new CaError(
    ErrorCode.CertificateLintFailed,
    `The ${what} to be signed breaks ${findings.length === 1 ? 'a profile rule' : `${findings.length} profile rules`}; nothing was signed.`,
    findings.map(({ lint, message }) => ({ field: lint, message })),
  );
}
