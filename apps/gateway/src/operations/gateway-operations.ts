import { CaError, IssuancePattern, RevokeCaResult, KEY_GENERATION_TIMEOUT_MS } from '@ca/contracts';
import { OpsOutput } from '@ca/operations';
import type { DataSource } from 'typeorm';
import { AuditEntry } from '../audit/audit-chain';
import { AuditStore, DEFAULT_AUDIT_RETENTION_DAYS } from '../audit/audit.store';
import { TENANT_CACHE_TTL_MS } from '../tenants/tenant-directory';
import { TenantRecord, TenantStore } from '../tenants/tenant.store';
import { ExpiryReportSource, runExpiringReport } from './expiring-report';
import { OPS_USAGE, OpsCommand } from './ops-command';

export interface OpsDefaults {
  defaultCertificateLimit: number;
  defaultAuditRetentionDays?: number;
}

/**
 * The operator commands (docs/api.md#operator-commands) on the gateway's schema, the same code whether the
 * CLI reaches Postgres itself (DATABASE_URL) or goes through the embedded operator endpoint.
 * Returns the exit code: 0 done, 1 failed (audit verify found a bad entry, no such tenant).
 */
export class GatewayOperations {
  private readonly tenants: TenantStore;
  private readonly audit: AuditStore;

  constructor(
    dataSource: DataSource,
    private readonly defaults: OpsDefaults,
    /** Issuance, for the expiry report (expiry facts live there, not in the gateway's schema). */
    private readonly issuance?: ExpiryReportSource,
  ) {
    // Its changes reach issuance as `tenant.updated` through the gateway outbox, which a running
    // gateway's relay publishes (polled every half second; this process may be the CLI).
    this.tenants = new TenantStore(dataSource, {
      defaultCertificateLimit: defaults.defaultCertificateLimit,
    });
    this.audit = new AuditStore(dataSource);
  }

  async run(command: OpsCommand, io: OpsOutput): Promise<number> {
    const effect = `takes effect on every gateway within ${TENANT_CACHE_TTL_MS / 1000} s`;
    switch (command.kind) {
      case 'help':
        await io.out(OPS_USAGE);
        return 0;
      case 'tenant.suspend':
        await this.tenants.setStatus(command.tenantId, 'suspended');
        await io.out(`tenant ${command.tenantId} suspended (${effect})`);
        return 0;
      case 'tenant.resume':
        await this.tenants.setStatus(command.tenantId, 'active');
        await io.out(`tenant ${command.tenantId} active (${effect})`);
        return 0;
      case 'tenant.set-limit': {
        const tenant = await this.tenants.setCertificateLimit(command.tenantId, command.limit);
        await io.out(`tenant ${command.tenantId} certificate limit ${this.limitText(tenant)} (${effect})`);
        return 0;
      }
      case 'tenant.set-retention': {
        const tenant = await this.tenants.setAuditRetentionDays(command.tenantId, command.days);
        await io.out(`tenant ${command.tenantId} audit retention ${this.retentionText(tenant)}`);
        return 0;
      }
      case 'tenant.show': {
        const tenant = await this.tenants.find(command.tenantId);
        if (!tenant) {
          await io.err(`ops: no tenant ${command.tenantId} yet (tenants are created on first use)`);
          return 1;
        }
        await io.out(JSON.stringify(this.tenantView(tenant)));
        return 0;
      }
      case 'audit.export':
        for await (const entry of this.audit.entries({ tenantId: command.tenantId, since: command.since })) {
          await io.out(JSON.stringify(exportView(entry)));
        }
        return 0;
      case 'audit.verify': {
        const result = await this.audit.verify();
        if (!result.ok) {
          await io.err(`audit verify: FAILED at entry ${result.entryId}: ${result.problem}`);
          return 1;
        }
        await io.out(
          result.entries === 0
            ? 'audit verify: OK, no entries to check (hash chain intact)'
            : `audit verify: OK, ${result.entries} entries (ids ${result.firstId} to ${result.lastId}), hash chain intact`,
        );
        // Not tampering (the chain is intact) but calls the log does not hold: said on stderr, exit 0.
        const deadLetters = await this.audit.deadLetterSummary();
        if (deadLetters.count > 0) {
          await io.err(
            `audit verify: WARNING ${deadLetters.count} entries could not be stored and were set aside ` +
              `in gateway.audit_dead_letters (recorded ${deadLetters.oldest!.toISOString()} to ${deadLetters.newest!.toISOString()})`,
          );
        }
        return 0;
      }
      case 'expiring':
        if (!this.issuance) {
          await io.err('ops: expiring needs the issuance service, which this process cannot reach');
          return 1;
        }
        return runExpiringReport(command, this.issuance, io);
      case 'ca.list': {
        if (!this.issuance) {
          await io.err('ops: ca list needs the issuance service, which this process cannot reach');
          return 1;
        }
        // docs/api.md#list-the-cas, without the PEMs: one line per CA.
        const { cas } = await this.issuance.send(IssuancePattern.ListCas, {
          tenantId: command.tenantId,
          principal: 'operator',
        });
        for (const { certificatePem: _pem, ...ca } of cas) await io.out(JSON.stringify(ca));
        if (cas.length === 0) await io.err(`ops: tenant ${command.tenantId} has no CA`);
        return 0;
      }
      case 'ca.add-issuing': {
        if (!this.issuance) {
          await io.err('ops: ca add-issuing needs the issuance service, which this process cannot reach');
          return 1;
        }
        // docs/operations.md#issuing-ca-rollover: one JSON line with the new CA (without its PEM).
        try {
          const added = await this.issuance.send(
            IssuancePattern.AddIssuingCa,
            {
              tenantId: command.tenantId,
              principal: 'operator',
              request: command.validityDays ? { validityDays: command.validityDays } : {},
            },
            { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
          );
          // Under a corporate root the answer is the pending CA with its CSR, which is to be signed.
          if ('csrPem' in added) {
            await io.out(JSON.stringify(added));
          } else {
            const { certificatePem: _pem, chainPem: _chain, ...summary } = added;
            await io.out(JSON.stringify(summary));
          }
          return 0;
        } catch (error) {
          if (!(error instanceof CaError)) throw error;
          const fields = (error.errors ?? []).map(({ field, message }) => ` ${field} ${message}`).join(';');
          await io.err(`ops: ca add-issuing refused (${error.code}): ${error.message}${fields}`);
          return 1;
        }
      }
      case 'ca.renew-root': {
        if (!this.issuance) {
          await io.err('ops: ca renew-root needs the issuance service, which this process cannot reach');
          return 1;
        }
        // docs/operations.md#renewing-a-tenant-root: one JSON line with the new CAs (without PEMs).
        try {
          const { keyAlgorithm, validityYears } = command;
          const renewed = await this.issuance.send(
            IssuancePattern.RenewRoot,
            {
              tenantId: command.tenantId,
              principal: 'operator',
              request: {
                ...(keyAlgorithm ? { keyAlgorithm } : {}),
                ...(validityYears ? { validityYears } : {}),
              },
            },
            { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
          );
          await io.out(
            JSON.stringify({
              caId: renewed.caId,
              expiresAt: renewed.expiresAt,
              keyAlgorithm: renewed.keyAlgorithm,
              retiredRootCaId: renewed.retiredRootCaId,
              issuingCaId: renewed.issuingCa.caId,
              ...(renewed.retiredCaId ? { retiredCaId: renewed.retiredCaId } : {}),
            }),
          );
          return 0;
        } catch (error) {
          if (!(error instanceof CaError)) throw error;
          const fields = (error.errors ?? []).map(({ field, message }) => ` ${field} ${message}`).join(';');
          await io.err(`ops: ca renew-root refused (${error.code}): ${error.message}${fields}`);
          return 1;
        }
      }
      case 'ca.revoke': {
        if (!this.issuance) {
          await io.err('ops: ca revoke needs the issuance service, which this process cannot reach');
          return 1;
        }
        // docs/operations.md#revoking-an-issuing-ca. A refusal (the root, revoked already, no such
        // CA) is one line naming why, exit 1.
        let revoked: RevokeCaResult;
        try {
          revoked = await this.issuance.send(IssuancePattern.RevokeCa, {
            tenantId: command.tenantId,
            principal: 'operator',
            caId: command.caId,
            request: { reason: command.note, reasonCode: command.reasonCode },
          });
        } catch (error) {
          if (!(error instanceof CaError)) throw error;
          const fields = (error.errors ?? []).map(({ field, message }) => ` ${field} ${message}`).join(';');
          await io.err(`ops: ca revoke refused (${error.code}): ${error.message}${fields}`);
          return 1;
        }
        await io.out(JSON.stringify(revoked));
        return 0;
      }
    }
  }

  private tenantView(tenant: TenantRecord) {
    return {
      tenantId: tenant.tenantId,
      status: tenant.status,
      certificateLimit: tenant.certificateLimit ?? this.defaults.defaultCertificateLimit,
      certificateLimitIsDefault: tenant.certificateLimit === null,
      auditRetentionDays: tenant.auditRetentionDays ?? this.defaultRetentionDays(),
      auditRetentionIsDefault: tenant.auditRetentionDays === null,
      createdAt: tenant.createdAt.toISOString(),
    };
  }

  private limitText(tenant: TenantRecord): string {
    return tenant.certificateLimit === null
      ? `default (DEFAULT_CERTIFICATE_LIMIT, ${this.defaults.defaultCertificateLimit} here)`
      : String(tenant.certificateLimit);
  }

  private retentionText(tenant: TenantRecord): string {
    return tenant.auditRetentionDays === null
      ? `default (${this.defaultRetentionDays()} days)`
      : `${tenant.auditRetentionDays} days`;
  }

  private defaultRetentionDays(): number {
    return this.defaults.defaultAuditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS;
  }
}

/** One line of `audit export`: every stored field, timestamps in ISO 8601. */
export function exportView(entry: AuditEntry) {
  return {
    id: entry.id,
    occurredAt: entry.occurredAt.toISOString(),
    tenantId: entry.tenantId,
    principal: entry.principal,
    action: entry.action,
    resource: entry.resource,
    result: entry.result,
    code: entry.code,
    requestId: entry.requestId,
    ...(entry.occurrences ? { occurrences: entry.occurrences } : {}),
    prevHash: entry.prevHash,
    hash: entry.hash,
  };
}
