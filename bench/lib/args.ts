import { parseArgs, ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

const COMMON: Options = {
  quick: { type: 'boolean', default: false },
  'no-record': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

/**
 * Command-line options of a benchmark: its own plus `--quick` (smaller, shorter; for trying the
 * harness) and `--no-record` (print only; do not append to bench/history).
 */
export function benchArgs<T extends Options>(
  usage: string,
  options: T,
): { quick: boolean; record: boolean; values: Record<string, string | boolean | undefined> } {
  const parsed = parseArgs({ options: { ...COMMON, ...options }, strict: true, allowPositionals: false });
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return {
    quick: values.quick === true,
    record: values['no-record'] !== true,
    values,
  };
}

/** A positive whole number from an option, or the default. */
export function intOption(value: string | boolean | undefined, name: string, fallback: number): number {
  if (value === undefined || value === false) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number`);
  return n;
}

/** A comma-separated list of positive whole numbers, or the default. */
export function intListOption(
  value: string | boolean | undefined,
  name: string,
  fallback: number[],
): number[] {
  if (typeof value !== 'string') return fallback;
  return value.split(',').map((part) => intOption(part.trim().replace(/_/g, ''), name, 0));
}
