import { Logger } from '@nestjs/common';
import { JetStreamManager, StreamConfig, StreamInfo } from 'nats';

/**
 * Who may shape a stream. The owner (issuance, on the production bus the only user allowed to
 * create or update the streams) creates it and, at every start, puts back any setting someone
 * changed (a password that can update a stream could set `max_msgs: 1` or move its subjects). The
 * others only use it: when they may not create it they wait for the owner, never exit for it.
 */
export type StreamRole = 'owner' | 'user';

/** The service that creates the streams on the production bus (deploy/nats/nats-server.conf). */
export const STREAM_OWNER = 'issuance';

/** Says what a starting service waits for (its log and `/health/ready`); undefined: nothing. */
export type WaitReporter = (waitingFor: string | undefined) => void;

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

export function isPermissionViolation(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'PERMISSIONS_VIOLATION' || /permissions violation/i.test(String(message));
}

function isNotFound(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '404' || /not found/i.test(String(message));
}

/** The stream's info, or undefined when it does not exist (any other failure is thrown). */
async function infoOf(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Makes sure `config.name` exists before the service uses it. Absent: created (by anyone on a
 * development bus); when creation is refused for want of permission, waits with backoff for the
 * owner to create it, saying so in the log and through `report`. The owner then checks the
 * stream's settings against `config` and restores them (`onRestore` may adjust the update).
 */
export async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
  options: { role: StreamRole; owner: string; report?: WaitReporter; logger?: Logger },
): Promise<void> {
  const logger = options.logger ?? new Logger('JetStream');
  const waitingFor = `stream ${config.name} (created by ${options.owner})`;
  let delay = FIRST_RETRY_MS;
  for (let attempt = 0; ; attempt++) {
    const existing = await infoOf(jsm, config.name);
    if (existing) {
      if (attempt > 0) {
        options.report?.(undefined);
        logger.log({ stream: config.name }, `${waitingFor} found; starting`);
      }
      if (options.role === 'owner') await restoreSettings(jsm, existing, config, logger);
      return;
    }
    // Asked once: a refusal means this user may not create it, and asking again only fills the
    // server's log with violations.
    if (attempt === 0) {
      try {
        await jsm.streams.add(config);
        return;
      } catch (error) {
        if (!isPermissionViolation(error) && !/already in use|already exists/i.test(String(error)))
          throw error;
      }
    }
    if (attempt % 10 === 0) logger.warn({ stream: config.name }, `waiting for ${waitingFor}`);
    options.report?.(waitingFor);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(MAX_RETRY_MS, delay * 2);
  }
}

/**
 * The settings an owner fixes. Fields left out of `config` must be at the server's default, so a
 * limit someone added (`max_msgs: 1`) is taken away again.
 */
const DEFAULTS: Partial<StreamConfig> = {
  max_msgs: -1,
  max_bytes: -1,
  max_msg_size: -1,
  max_msgs_per_subject: -1,
  max_age: 0,
  deny_delete: false,
  deny_purge: false,
  sealed: false,
};

/** The fields of `config` (or its DEFAULTS) that `actual` does not have; `[]` when it matches. */
export function changedStreamSettings(
  actual: Partial<StreamConfig>,
  config: Partial<StreamConfig>,
): string[] {
  const wanted: Record<string, unknown> = { ...DEFAULTS, ...config };
  const have = actual as Record<string, unknown>;
  return Object.keys(wanted).filter((key) => {
    if (key === 'name') return false;
    const a = have[key];
    const w = wanted[key];
    if (Array.isArray(w)) return !Array.isArray(a) || [...a].sort().join('\n') !== [...w].sort().join('\n');
    // Absent on the server means its default (false, 0 or -1 above).
    if (a === undefined) return w !== false && w !== 0 && w !== -1;
    return a !== w;
  });
}

async function restoreSettings(
  jsm: JetStreamManager,
  existing: StreamInfo,
  config: Partial<StreamConfig> & { name: string },
  logger: Logger,
): Promise<void> {
  const changed = changedStreamSettings(existing.config, config);
  if (changed.length === 0) return;
  const wanted = { ...DEFAULTS, ...config };
  try {
    await jsm.streams.update(config.name, { ...existing.config, ...wanted });
    logger.warn(
      { stream: config.name, changed, found: pick(existing.config, changed) },
      'stream settings were changed outside this service: restored',
    );
  } catch (error) {
    // An operator who manages the stream may have withheld the update right: say what differs.
    logger.error(
      { err: error, stream: config.name, changed, found: pick(existing.config, changed) },
      'stream settings differ from what this service needs and could not be restored',
    );
  }
}

function pick(config: object, keys: string[]): Record<string, unknown> {
  const all = config as Record<string, unknown>;
  return Object.fromEntries(keys.map((key) => [key, all[key]]));
}
