import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AcmeApi, IssuanceApi, KeyAlgorithm, WebhooksApi } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { healthController } from '@ca/runtime';
import { ACME_RPC } from './acme/acme-rpc';
import { AuditController } from './audit/audit.controller';
import { AuditStore } from './audit/audit.store';
import { CONSOLE_SITE, ConsoleController } from './console/console.controller';
import { ConsoleSite } from './console/console-site';
import { EabKeysController } from './acme/eab-keys.controller';
import { AcmeProfilesController } from './acme/acme-profiles.controller';
import { Public } from './auth/auth.decorators';
import { AuthFailureLimiter } from './auth/auth-failure-limiter';
import { JwtAuthGuard } from './auth/jwt-auth.guard';
import { JwtStrategy } from './auth/jwt.strategy';
import { TokenVerifier } from './auth/token-verifier';
import { CertificateAuthorityController } from './certificate-authority/certificate-authority.controller';
import { CertificateAuthorityV2Controller } from './certificate-authority/certificate-authority-v2.controller';
import { CertificatesController } from './certificates/certificates.controller';
import { CertificatesV2Controller } from './certificates/certificates-v2.controller';
import {
  CertificateInventoryController,
  JobsController,
} from './certificates/certificate-inventory.controller';
import { CertificateDeliverer } from './certificates/certificate-delivery';
import { LeafKeyAlgorithms } from './certificates/leaf-key-algorithm';
import { DownloadLinks } from './downloads/download-links';
import { DownloadsController } from './downloads/downloads.controller';
import { ProblemDetailsFilter } from './http/problem-details.filter';
import { IssuancePolicyController } from './policy/issuance-policy.controller';
import { RateLimiter } from './rate-limit/rate-limiter';
import { TenantDirectory } from './tenants/tenant-directory';
import { JobAuditFollower } from './audit/job-audit-follower';
import { WEBHOOKS_RPC, WebhooksController } from './webhooks/webhooks.controller';

export interface GatewayDependencies {
  tokenVerifier: TokenVerifier;
  issuance: RpcClient<IssuanceApi>;
  acme: RpcClient<AcmeApi>;
  webhooks: RpcClient<WebhooksApi>;
  tenants: TenantDirectory;
  rateLimiter: RateLimiter;
  authFailures: AuthFailureLimiter;
  downloads: DownloadLinks;
  errorCatalogUrl: string;
  /** KEY_ALGORITHM (docs/operations.md#configuration): the leaf keys the gateway makes follow it. */
  keyAlgorithm: KeyAlgorithm;
  ready: () => Promise<boolean>;
  /** Audits each certificate a bulk revocation job revokes. */
  jobAudits: JobAuditFollower;
  /** The tenant's audit log as GET /v2/audit reads it. */
  audit: AuditStore;
  /** The operator console's build and headers (docs/console.md). */
  console: ConsoleSite;
}

/**
 * The administrative API: authentication, tenant status, rate limits, scopes, validation, Problem
 * Details; one NATS request per call. (The audit middleware and the ACME edge are mounted in
 * start-gateway.ts.)
 */
@Module({})
export class GatewayModule {
  static register(deps: GatewayDependencies): DynamicModule {
    const Health = healthController(deps.ready);
    Public()(Health);
    return {
      module: GatewayModule,
      imports: [PassportModule],
      controllers: [
        CertificateAuthorityController,
        CertificateAuthorityV2Controller,
        CertificatesController,
        CertificatesV2Controller,
        CertificateInventoryController,
        JobsController,
        DownloadsController,
        EabKeysController,
        AcmeProfilesController,
        IssuancePolicyController,
        WebhooksController,
        AuditController,
        ConsoleController,
        Health,
      ],
      providers: [
        { provide: TokenVerifier, useValue: deps.tokenVerifier },
        { provide: RpcClient, useValue: deps.issuance },
        { provide: ACME_RPC, useValue: deps.acme },
        { provide: WEBHOOKS_RPC, useValue: deps.webhooks },
        { provide: TenantDirectory, useValue: deps.tenants },
        { provide: RateLimiter, useValue: deps.rateLimiter },
        { provide: AuthFailureLimiter, useValue: deps.authFailures },
        { provide: DownloadLinks, useValue: deps.downloads },
        { provide: JobAuditFollower, useValue: deps.jobAudits },
        { provide: AuditStore, useValue: deps.audit },
        { provide: CONSOLE_SITE, useValue: deps.console },
        { provide: CertificateDeliverer, useValue: new CertificateDeliverer(deps.downloads) },
        {
          provide: LeafKeyAlgorithms,
          useValue: new LeafKeyAlgorithms(deps.issuance, undefined, deps.keyAlgorithm),
        },
        JwtStrategy,
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_FILTER, useValue: new ProblemDetailsFilter(deps.errorCatalogUrl) },
      ],
    };
  }
}
