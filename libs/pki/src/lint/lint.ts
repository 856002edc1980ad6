/**
 * One rule a to-be-signed structure must pass (zlint / pkilint style): `name` identifies it in
 * errors and in the `ca_lint_failures_total{lint}` metric, `source` is the RFC or CA/B BR section it
 * comes from, `check` returns why the input breaks it, or undefined.
 */
export interface Lint<View> {
  readonly name: string;
  readonly source: string;
  check(view: View): string | undefined;
}

/** A lint that failed, with why. */
export interface LintFinding {
  lint: string;
  message: string;
}

/** Every failing lint of `lints` on `view`, in the order given. */
export function runLints<View>(lints: readonly Lint<View>[], view: View): LintFinding[] {
  const findings: LintFinding[] = [];
  for (const lint of lints) {
    const message = lint.check(view);
    if (message !== undefined) findings.push({ lint: lint.name, message });
  }
  return findings;
}
