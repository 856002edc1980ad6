import {
  CA_REVOCATION_REASON_CODES,
  KEY_ALGORITHMS,
  KeyAlgorithm,
  MAX_ROOT_VALIDITY_YEARS,
  RevocationReasonCode,
  parseUuid,
} from '@ca/contracts';
import { UsageError } from '@ca/operations';

/** A command line of `npm run ops -- …` (docs/api.md#operator-commands), parsed and checked. */
export type OpsCommand =
  | { kind: 'help' }
  | { kind: 'tenant.suspend'; tenantId: string }
  | { kind: 'tenant.resume'; tenantId: string }
  | { kind: 'tenant.set-limit'; tenantId: string; limit: number | null }
  | { kind: 'tenant.set-retention'; tenantId: string; days: number | null }
  | { kind: 'tenant.show'; tenantId: string }
  | { kind: 'audit.export'; tenantId?: string; since?: Date }
  | { kind: 'audit.verify' }
  | { kind: 'expiring'; days: number; json: boolean }
  | { kind: 'ca.list'; tenantId: string }
  | { kind: 'ca.add-issuing'; tenantId: string; validityDays?: number }
  | { kind: 'ca.renew-root'; tenantId: string; keyAlgorithm?: KeyAlgorithm; validityYears?: number }
  | { kind: 'ca.revoke'; tenantId: string; caId: string; reasonCode: RevocationReasonCode; note: string };

export const OPS_USAGE = `usage: npm run ops -- <command>
  tenant suspend <tenantId>             403 on every admin call of the tenant (CRL, OCSP, CA certificate stay served)
  tenant resume <tenantId>              lift a suspension
  tenant set-limit <tenantId> <n|default>       the most Active certificates the tenant may hold
  tenant set-retention <tenantId> <days|default> audit retention of the tenant, 30 to 365 days
  tenant show <tenantId>                the tenant's status and limits, as JSON
  audit export [--tenant <tenantId>] [--since <iso-date>]   the audit log as JSON lines
  audit verify                          check the audit log's hash chain
  expiring [--days <n>] [--json]        per tenant, Active certificates expiring within n days (default 30)
  ca list <tenantId>                    the tenant's CAs (root, issuing) with their state, one JSON line each
  ca add-issuing <tenantId> [--validity-days <n>]   a new issuing CA under the root signs leaves from now on (rollover)
  ca renew-root <tenantId> [--key-algorithm <alg>] [--validity-years <n>]   a new root, cross-signed by the old one, and a new issuing CA under it
  ca revoke <tenantId> <caId> --reason <keyCompromise|…> [--note <text>]   revoke an issuing CA (root.crl, OCSP; no more leaves)
  custody rotate-kek [--new-kek-file FILE]       re-wrap every CA key under a new KEK (npm run ops -- custody help)
  events dead-letters list|replay <id>|drop <id> events a consumer set aside (npm run ops -- events help)
  nats-keys [--dir DIR]                 a new NATS NKey pair per service, as env lines (seeds to DIR/<app>.nk with --dir)`;

/** As DEFAULT_CERTIFICATE_LIMIT accepts it. */
const MAX_CERTIFICATE_LIMIT = 100_000_000;
export const MIN_AUDIT_RETENTION_DAYS = 30;
export const MAX_AUDIT_RETENTION_DAYS = 365;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function parseOpsCommand(argv: readonly string[]): OpsCommand {
  const [group, action, ...rest] = argv;
  if (group === undefined || group === 'help' || group === '--help' || group === '-h')
    return { kind: 'help' };
  if (group === 'tenant') return parseTenantCommand(action, rest);
  if (group === 'audit') return parseAuditCommand(action, rest);
  if (group === 'expiring') return parseExpiringCommand(argv.slice(1));
  if (group === 'ca') return parseCaCommand(action, rest);
  throw new UsageError(`unknown command "${group}"; expected tenant, audit, expiring or ca`);
}

function parseTenantCommand(action: string | undefined, args: string[]): OpsCommand {
  const tenantArg = () => {
    const tenantId = args[0];
    if (tenantId === undefined) throw new UsageError(`tenant ${action} needs a <tenantId>`);
    return tenantIdOf(tenantId);
  };
  const expectArgs = (count: number, shape: string) => {
    if (args.length !== count) throw new UsageError(`usage: tenant ${action} ${shape}`);
  };
  switch (action) {
    case 'suspend':
    case 'resume':
    case 'show': {
      expectArgs(1, '<tenantId>');
      return { kind: `tenant.${action}`, tenantId: tenantArg() };
    }
    case 'set-limit': {
      expectArgs(2, '<tenantId> <n|default>');
      const tenantId = tenantArg();
      return {
        kind: 'tenant.set-limit',
        tenantId,
        limit: wholeNumber(args[1], 'limit', 0, MAX_CERTIFICATE_LIMIT),
      };
    }
    case 'set-retention': {
      expectArgs(2, '<tenantId> <days|default>');
      const tenantId = tenantArg();
      const days = wholeNumber(args[1], 'days', MIN_AUDIT_RETENTION_DAYS, MAX_AUDIT_RETENTION_DAYS);
      return { kind: 'tenant.set-retention', tenantId, days };
    }
    default:
      throw new UsageError(
        action === undefined
          ? 'tenant needs a command: suspend, resume, set-limit, set-retention or show'
          : `unknown tenant command "${action}"; expected suspend, resume, set-limit, set-retention or show`,
      );
  }
}

function parseAuditCommand(action: string | undefined, args: string[]): OpsCommand {
  if (action === 'verify') {
    if (args.length > 0) throw new UsageError(`audit verify takes no arguments, got "${args[0]}"`);
    return { kind: 'audit.verify' };
  }
  if (action === 'export') {
    const command: { kind: 'audit.export'; tenantId?: string; since?: Date } = { kind: 'audit.export' };
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      const equals = arg.indexOf('=');
      const flag = equals >= 0 ? arg.slice(0, equals) : arg;
      if (flag !== '--tenant' && flag !== '--since')
        throw new UsageError(`unknown option "${arg}" for audit export; expected --tenant or --since`);
      const value = equals >= 0 ? arg.slice(equals + 1) : args[++i];
      if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
      if (flag === '--tenant') command.tenantId = tenantIdOf(value);
      else command.since = isoDateOf(value);
    }
    return command;
  }
  throw new UsageError(
    action === undefined
      ? 'audit needs a command: export or verify'
      : `unknown audit command "${action}"; expected export or verify`,
  );
}

/** The same window as a tenant's own expiring list (docs/api.md#expiring-certificates): 0 to 3650 days. */
export const MAX_EXPIRING_DAYS = 3650;

function parseExpiringCommand(args: string[]): OpsCommand {
  const command = { kind: 'expiring' as const, days: 30, json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--json') {
      command.json = true;
      continue;
    }
    const equals = arg.indexOf('=');
    const flag = equals >= 0 ? arg.slice(0, equals) : arg;
    if (flag !== '--days')
      throw new UsageError(`unknown option "${arg}" for expiring; expected --days or --json`);
    const value = equals >= 0 ? arg.slice(equals + 1) : args[++i];
    if (value === undefined || !/^\d+$/.test(value) || Number(value) > MAX_EXPIRING_DAYS)
      throw new UsageError(
        `--days must be a whole number from 0 to ${MAX_EXPIRING_DAYS}, got "${value ?? ''}"`,
      );
    command.days = Number(value);
  }
  return command;
}

const CA_USAGE =
  'usage: ca list <tenantId> | ca add-issuing <tenantId> [--validity-days <n>] | ca renew-root <tenantId> [--key-algorithm <alg>] [--validity-years <n>] | ca revoke <tenantId> <caId> --reason <reason> [--note <text>]';
const ADD_ISSUING_USAGE = 'usage: ca add-issuing <tenantId> [--validity-days <n>]';

function parseCaCommand(action: string | undefined, args: string[]): OpsCommand {
  if (action === 'list') {
    if (args.length !== 1) throw new UsageError('usage: ca list <tenantId>');
    return { kind: 'ca.list', tenantId: tenantIdOf(args[0]) };
  }
  if (action === 'add-issuing') return parseAddIssuing(args);
  if (action === 'renew-root') return parseRenewRoot(args);
  if (action !== 'revoke') throw new UsageError(CA_USAGE);
  const [tenantId, caId, ...options] = args;
  if (tenantId === undefined || caId === undefined) throw new UsageError(CA_USAGE);
  let reasonCode: RevocationReasonCode | undefined;
  let note = 'revoked by the operator';
  for (let i = 0; i < options.length; i++) {
    const arg = options[i];
    const equals = arg.indexOf('=');
    const flag = equals >= 0 ? arg.slice(0, equals) : arg;
    if (flag !== '--reason' && flag !== '--note')
      throw new UsageError(`unknown option "${arg}" for ca revoke; expected --reason or --note`);
    const value = equals >= 0 ? arg.slice(equals + 1) : options[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    if (flag === '--note') note = value;
    else reasonCode = caReasonOf(value);
  }
  if (!reasonCode)
    throw new UsageError(`ca revoke needs --reason (${CA_REVOCATION_REASON_CODES.join(', ')})`);
  return { kind: 'ca.revoke', tenantId: tenantIdOf(tenantId), caId: uuidOf(caId, 'caId'), reasonCode, note };
}

/** docs/operations.md#issuing-ca-rollover */
function parseAddIssuing(args: string[]): OpsCommand {
  const [tenantId, ...options] = args;
  if (tenantId === undefined) throw new UsageError(ADD_ISSUING_USAGE);
  if (options.length === 0) return { kind: 'ca.add-issuing', tenantId: tenantIdOf(tenantId) };
  const [flag, value] = options[0].includes('=') ? options[0].split('=', 2) : options;
  if (flag !== '--validity-days' || options.length > (options[0].includes('=') ? 1 : 2))
    throw new UsageError(ADD_ISSUING_USAGE);
  if (value === undefined || !/^[1-9][0-9]{0,5}$/.test(value))
    throw new UsageError('--validity-days needs a whole number of days');
  return { kind: 'ca.add-issuing', tenantId: tenantIdOf(tenantId), validityDays: Number(value) };
}

const RENEW_ROOT_USAGE = 'usage: ca renew-root <tenantId> [--key-algorithm <alg>] [--validity-years <n>]';

/** docs/operations.md#renewing-a-tenant-root */
function parseRenewRoot(args: string[]): OpsCommand {
  const [tenantId, ...options] = args;
  if (tenantId === undefined || tenantId.startsWith('--')) throw new UsageError(RENEW_ROOT_USAGE);
  const command: Extract<OpsCommand, { kind: 'ca.renew-root' }> = {
    kind: 'ca.renew-root',
    tenantId: tenantIdOf(tenantId),
  };
  for (let i = 0; i < options.length; i++) {
    const arg = options[i];
    const equals = arg.indexOf('=');
    const flag = equals >= 0 ? arg.slice(0, equals) : arg;
    const value = equals >= 0 ? arg.slice(equals + 1) : options[++i];
    if (flag === '--key-algorithm') {
      const found = KEY_ALGORITHMS.find((algorithm) => algorithm === value);
      if (!found) throw new UsageError(`--key-algorithm must be one of ${KEY_ALGORITHMS.join(', ')}`);
      command.keyAlgorithm = found;
    } else if (flag === '--validity-years') {
      if (value === undefined || !/^[1-9][0-9]?$/.test(value) || Number(value) > MAX_ROOT_VALIDITY_YEARS)
        throw new UsageError(`--validity-years must be a whole number from 1 to ${MAX_ROOT_VALIDITY_YEARS}`);
      command.validityYears = Number(value);
    } else {
      throw new UsageError(RENEW_ROOT_USAGE);
    }
  }
  return command;
}

/** `keyCompromise` (RFC 5280's spelling) or `KeyCompromise` (the API's). */
function caReasonOf(value: string): RevocationReasonCode {
  const found = CA_REVOCATION_REASON_CODES.find((code) => code.toLowerCase() === value.toLowerCase());
  if (!found)
    throw new UsageError(`--reason must be one of ${CA_REVOCATION_REASON_CODES.join(', ')}, got "${value}"`);
  return found;
}

function tenantIdOf(value: string): string {
  return uuidOf(value, 'tenantId');
}

function uuidOf(value: string, name: string): string {
  const id = parseUuid(value);
  if (!id) throw new UsageError(`${name} must be a UUID, got "${value}"`);
  return id;
}

function wholeNumber(value: string, name: string, min: number, max: number): number | null {
  if (value === 'default') return null;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`${name} must be a whole number from ${min} to ${max} or "default", got "${value}"`);
  return Number(value);
}

function isoDateOf(value: string): Date {
  const date = new Date(value);
  if (!ISO_DATE.test(value) || Number.isNaN(date.getTime()))
    throw new UsageError(`--since must be an ISO 8601 date or date-time, got "${value}"`);
  return date;
}
