import { ParseArgsConfig } from 'node:util';
import { ApiClient } from './api-client';

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command gets: the API, its parsed options and positionals, and where to print. */
export interface CommandContext {
  api: ApiClient;
  values: OptionValues;
  positionals: string[];
  json: boolean;
  /** Replace existing files (--force). */
  force: boolean;
  print(text: string): void;
}

export interface Command {
  /** The words that name it: `cert issue`. */
  name: string;
  summary: string;
  /** Arguments and options after the name, for --help. */
  usage: string;
  options: OptionSpecs;
  run(context: CommandContext): Promise<void>;
}

/** A mistake in the command line itself (exit 2, with the command's usage). */
export class UsageError extends Error {}

export const stringOption = (values: OptionValues, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};

export const listOption = (values: OptionValues, name: string): string[] => {
  const value = values[name];
  return Array.isArray(value) ? value.map(String) : [];
};

/** A whole number from an option, or the fallback; anything else is a usage error. */
export function integerOption(values: OptionValues, name: string, fallback?: number): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, got '${raw}'`);
  return Number(raw);
}

/** The single positional argument a command needs (an id, a name). */
export function onePositional(positionals: string[], what: string): string {
  if (positionals.length === 0) throw new UsageError(`missing ${what}`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
  return positionals[0];
}

export const printJson = (context: CommandContext, value: unknown) =>
  context.print(JSON.stringify(value, null, 2));
