import { ConfigError } from './config-error';

export type Env = Record<string, string | undefined>;

const value = (env: Env, name: string): string | undefined => {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
};

export function readString(env: Env, name: string, fallback?: string): string | undefined {
  return value(env, name) ?? fallback;
}

export function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

const DURATION_UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration as whole seconds (`28800`) or with one unit (`30s`, `30m`, `8h`, `1d`); in seconds. */
export function readDurationSeconds(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const match = /^(\d+)([smhd]?)$/.exec(raw);
  if (!match) throw new ConfigError(name, `must be seconds or a duration like 8h or 30m, got "${raw}"`);
  const seconds = Number(match[1]) * (DURATION_UNIT_SECONDS[match[2]] ?? 1);
  if (seconds < min || seconds > max)
    throw new ConfigError(name, `must be between ${min} and ${max} seconds, got ${seconds}`);
  return seconds;
}

export function readPort(env: Env, name: string, fallback: number): number {
  return readInt(env, name, fallback, 1, 65535);
}

/** An http(s) base URL, returned without a trailing slash so paths can be appended. */
export function readBaseUrl(env: Env, name: string, fallback: string): string {
  const raw = value(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(name, 'must use http or https');
  return raw.replace(/\/+$/, '');
}

export function readUrl(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  for (const part of raw.split(',')) {
    let url: URL;
    try {
      url = new URL(part.trim());
    } catch {
      throw new ConfigError(name, 'is not a valid URL');
    }
    if (!protocols.includes(url.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  }
  return raw;
}

export function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = value(env, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}`);
  return raw as T;
}
