import { UsageError } from '@ca/operations';
import { parseOpsCommand } from './ops-command';

const TENANT = '6F1C2F4E-8A43-4C4F-9F0E-2F7B8B1D9A10';
const tenant = TENANT.toLowerCase();

describe('npm run ops -- … arguments', () => {
  it.each([
    [['tenant', 'suspend', TENANT], { kind: 'tenant.suspend', tenantId: tenant }],
    [['tenant', 'resume', tenant], { kind: 'tenant.resume', tenantId: tenant }],
    [['tenant', 'show', tenant], { kind: 'tenant.show', tenantId: tenant }],
    [['tenant', 'set-limit', tenant, '2'], { kind: 'tenant.set-limit', tenantId: tenant, limit: 2 }],
    [['tenant', 'set-limit', tenant, '0'], { kind: 'tenant.set-limit', tenantId: tenant, limit: 0 }],
    [['tenant', 'set-limit', tenant, 'default'], { kind: 'tenant.set-limit', tenantId: tenant, limit: null }],
    [
      ['tenant', 'set-retention', tenant, '365'],
      { kind: 'tenant.set-retention', tenantId: tenant, days: 365 },
    ],
    [['audit', 'verify'], { kind: 'audit.verify' }],
    [['audit', 'export'], { kind: 'audit.export' }],
    [['audit', 'export', '--tenant', tenant], { kind: 'audit.export', tenantId: tenant }],
    [
      ['audit', 'export', '--since=2025-01-02T03:04:05Z', `--tenant=${tenant}`],
      { kind: 'audit.export', tenantId: tenant, since: new Date('2025-01-02T03:04:05Z') },
    ],
    [['audit', 'export', '--since', '2025-01-02'], { kind: 'audit.export', since: new Date('2025-01-02') }],
    [['expiring'], { kind: 'expiring', days: 30, json: false }],
    [
      ['ca', 'list', 'AAAAAAAA-1111-4222-8333-444444444444'],
      { kind: 'ca.list', tenantId: 'aaaaaaaa-1111-4222-8333-444444444444' },
    ],
    [['ca', 'add-issuing', tenant], { kind: 'ca.add-issuing', tenantId: tenant }],
    [
      ['ca', 'add-issuing', tenant, '--validity-days=365'],
      { kind: 'ca.add-issuing', tenantId: tenant, validityDays: 365 },
    ],
    [['ca', 'renew-root', tenant], { kind: 'ca.renew-root', tenantId: tenant }],
    [
      ['ca', 'renew-root', tenant, '--key-algorithm', 'P-384', '--validity-years=20'],
      { kind: 'ca.renew-root', tenantId: tenant, keyAlgorithm: 'P-384', validityYears: 20 },
    ],
    [
      ['ca', 'revoke', tenant, 'BBBBBBBB-1111-4222-8333-444444444444', '--reason', 'keyCompromise'],
      {
        kind: 'ca.revoke',
        tenantId: tenant,
        caId: 'bbbbbbbb-1111-4222-8333-444444444444',
        reasonCode: 'KeyCompromise',
        note: 'revoked by the operator',
      },
    ],
    [
      ['ca', 'revoke', tenant, tenant, '--note=leaked', '--reason=Superseded'],
      { kind: 'ca.revoke', tenantId: tenant, caId: tenant, reasonCode: 'Superseded', note: 'leaked' },
    ],
    [['expiring', '--days', '7', '--json'], { kind: 'expiring', days: 7, json: true }],
    [['expiring', '--json', '--days=0'], { kind: 'expiring', days: 0, json: true }],
    [[], { kind: 'help' }],
    [['--help'], { kind: 'help' }],
  ])('%j', (argv, command) => {
    expect(parseOpsCommand(argv)).toEqual(command);
  });

  it.each([
    [['frob'], /unknown command "frob"/],
    [['expiring', '--days'], /--days must be a whole number from 0 to 3650, got ""/],
    [['expiring', '--days', '3651'], /--days must be a whole number from 0 to 3650, got "3651"/],
    [['expiring', '--days', '-1'], /--days must be a whole number/],
    [['expiring', '--tenant', 'x'], /unknown option "--tenant" for expiring/],
    [['tenant'], /tenant needs a command/],
    [['tenant', 'delete', tenant], /unknown tenant command "delete"/],
    [['tenant', 'suspend'], /usage: tenant suspend <tenantId>/],
    [['tenant', 'suspend', 'acme'], /tenantId must be a UUID, got "acme"/],
    [['tenant', 'suspend', tenant, 'extra'], /usage: tenant suspend/],
    [['tenant', 'set-limit', tenant], /usage: tenant set-limit <tenantId> <n\|default>/],
    [['tenant', 'set-limit', tenant, '-1'], /limit must be a whole number/],
    [['tenant', 'set-limit', tenant, '2.5'], /limit must be a whole number/],
    [['tenant', 'set-limit', tenant, '100000001'], /limit must be a whole number from 0 to 100000000/],
    [['tenant', 'set-retention', tenant, '7'], /days must be a whole number from 30 to 365/],
    [['ca', 'revoke', tenant, tenant], /ca revoke needs --reason/],
    [['ca', 'revoke', tenant, 'nope', '--reason', 'keyCompromise'], /caId must be a UUID/],
    [['ca', 'revoke', tenant, tenant, '--reason', 'certificateHold'], /--reason must be one of/],
    [['ca', 'revoke', tenant], /usage: ca list <tenantId> \| ca add-issuing .* \| ca revoke/],
    [['ca', 'add-issuing'], /usage: ca add-issuing <tenantId>/],
    [['ca', 'renew-root'], /usage: ca renew-root <tenantId>/],
    [['ca', 'renew-root', tenant, '--key-algorithm', 'P-521'], /--key-algorithm must be one of/],
    [['ca', 'renew-root', tenant, '--validity-years', '31'], /from 1 to 30/],
    [['ca', 'renew-root', tenant, '--force'], /usage: ca renew-root/],
    [['ca', 'add-issuing', tenant, '--validity-days', '0'], /whole number of days/],
    [['audit'], /audit needs a command/],
    [['audit', 'verify', '--fix'], /takes no arguments/],
    [['audit', 'export', '--tenant'], /--tenant needs a value/],
    [['audit', 'export', '--tenant', 'nope'], /tenantId must be a UUID/],
    [['audit', 'export', '--since', 'yesterday'], /--since must be an ISO 8601 date/],
    [['audit', 'export', '--since', '2025-13-45'], /--since must be an ISO 8601 date/],
    [['audit', 'export', '--format', 'csv'], /unknown option "--format"/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOpsCommand(argv)).toThrow(UsageError);
    expect(() => parseOpsCommand(argv)).toThrow(message);
  });
});
