import { readFileSync } from 'node:fs';
import { Page } from 'playwright-core';

/** What axe-core counts as a violation (the fields the suites report). */
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core in the page (injected from node_modules, never fetched; once per loaded document)
 * and expects no serious or critical violation; `what` names the page in a failure.
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const run = (
      globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }
    ).axe.run();
    return (await run).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  });
  expect({
    page: what,
    violations: violations.map(
      (v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
  }).toEqual({ page: what, violations: [] });
}
