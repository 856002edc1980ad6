import { DynamicModule, Module } from '@nestjs/common';
import { BlobStore, OutboxRelay } from '@ca/messaging';
import { KeyAlgorithm } from '@ca/contracts';
import { CertificateAuthorityController } from './certificate-authority/certificate-authority.controller';
import { CertificateAuthoritySigner } from './certificate-authority/certificate-authority.signer';
import { CaQueries } from './certificate-authority/ca-queries';
import { RevokeCaHandler } from './certificate-authority/revoke-ca.handler';
import { RevokeCrossCertificateHandler } from './certificate-authority/revoke-cross-certificate.handler';
import { AddIssuingCaHandler } from './certificate-authority/add-issuing-ca.handler';
import { RenewRootHandler } from './certificate-authority/renew-root.handler';
import { InitializeCaHandler } from './certificate-authority/initialize-ca.handler';
import { ExternalRootHandler } from './certificate-authority/external-root.handler';
import { CertificateGroupCommit } from './certificates/certificate-group-commit';
import { CertificateInventory } from './certificates/certificate-inventory';
import { CertificateQueries } from './certificates/certificate-queries';
import { CertificateMinter } from './certificates/certificate.minter';
import { CustomExtensionArcs } from './certificates/custom-extension-arcs';
import { CertificatesController } from './certificates/certificates.controller';
import { CertificateReplacements } from './certificates/certificate-replacements';
import { ReplacementController } from './certificates/replacement.controller';
import { ExpiryReporter } from './certificates/expiry-report';
import { ExpiryReportController } from './certificates/expiry-report.controller';
import { IssueCertificateHandler } from './certificates/issue-certificate.handler';
import { RenewCertificateHandler } from './certificates/renew-certificate.handler';
import { RevokeCertificateHandler } from './certificates/revoke-certificate.handler';
import { RevocationJobRunner } from './certificates/revocation-job-runner';
import { RevokeMatchingHandler } from './certificates/revoke-matching.handler';
import { ReleaseHoldHandler } from './certificates/release-hold.handler';
import { IssuancePolicies } from './policy/issuance-policies';
import { IssuancePolicyController } from './policy/issuance-policy.controller';
import { IssuancePolicyHandler } from './policy/issuance-policy.handler';
import { IssueOcspSignerHandler } from './signing/issue-ocsp-signer.handler';
import { CrlLedgerCheck } from './signing/crl-ledger-check';
import { SignCrlHandler } from './signing/sign-crl.handler';
import { SigningController } from './signing/signing.controller';
import { CaKeyCustodies } from './custody/ca-key-custodies';
import { ResponderPublication, unconfirmed } from './publication/responder-publication';
import { CrlRevocationsController } from './certificates/crl-revocations.controller';
import { WebhooksFeed } from './publication/webhooks-feed';
import { CaHandlerDependencies } from './certificate-authority/ca-handler-dependencies';
import { RevocationLedgerFeed } from './publication/revocation-ledger-feed';
import { IssuanceDatabase } from './issuance-database.store';
import { CertificateStore } from './certificates/certificate.store';

export interface IssuanceDependencies {
  /** The issuance schema's stores. */
  database: IssuanceDatabase;
  /** The custody of each CA role (root keys may be in a token of their own). */
  custodies: CaKeyCustodies;
  custodyKind: string;
  relay: OutboxRelay;
  /** Base URL written into CDP and AIA extensions (PKI_PUBLIC_URL). */
  pkiPublicUrl: string;
  blobs: BlobStore;
  /** DEFAULT_CERTIFICATE_LIMIT: the plan limit of a tenant issuance has no `tenant.updated` for yet. */
  defaultCertificateLimit: number;
  /** KEY_ALGORITHM: the key of CAs made without a choice; RSA-2048 is accepted only where it is this. */
  keyAlgorithm: KeyAlgorithm;
  /** The direct path to the responder (docs/architecture.md#read-your-writes). */
  publication: ResponderPublication;
  /** The early path to the webhooks context (docs/architecture.md#webhooks-early-path). */
  webhooksFeed?: WebhooksFeed;
  /** A bulk revocation job's direct path to the CRL (docs/architecture.md#bulk-revocation-direct-path). */
  revocationLedgerFeed?: RevocationLedgerFeed;
}

/**
 * The longest a group-commit batch waits for certificates already on their way
 * (CertificateGroupCommit.expect): it ends as soon as they are queued, a few milliseconds, and
 * never waits for a lone request. 40 ms let 8 clients' certificates share a batch (embedded, 8
 * clients: 3.3 certificates a batch at 10 ms, 7.5 to 8 at 40; docs/benchmarks.md).
 */
const GROUP_COMMIT_GATHER_MS = 40;

/** The issuance context: CA initialization, the certificate lifecycle (issue, renew, revoke, read) and the tenants' issuance policies. */
@Module({})
export class IssuanceModule {
  static register(deps: IssuanceDependencies): DynamicModule {
    const nudge = () => deps.relay.nudge();
    const { tables } = deps.database;
    const signer = new CertificateAuthoritySigner(tables.cas, tables.pendingCas, deps.custodies);
    const publication = deps.publication;
    const groupCommit = new CertificateGroupCommit({
      database: deps.database,
      onCommitted: (events) => {
        nudge();
        deps.webhooksFeed?.offer(events);
      },
      defaultCertificateLimit: deps.defaultCertificateLimit,
      publish: (events) => publication.confirm(events, 'certificates'),
      unconfirmed,
      withdraw: (events) => publication.withdraw(events),
      gatherMs: GROUP_COMMIT_GATHER_MS,
    });
    const policies = new IssuancePolicies(tables.policies);
    const caHandlers: CaHandlerDependencies = {
      database: deps.database,
      custodies: deps.custodies,
      custodyKind: deps.custodyKind,
      onEventsRecorded: nudge,
      pkiPublicUrl: deps.pkiPublicUrl,
      deploymentKeyAlgorithm: deps.keyAlgorithm,
    };
    const addIssuingCa = new AddIssuingCaHandler(caHandlers, signer);
    const revokeHandler = new RevokeCertificateHandler(
      deps.database,
      nudge,
      publication,
      deps.revocationLedgerFeed,
    );
    const jobRunner = new RevocationJobRunner(deps.database, revokeHandler);
    const minter = new CertificateMinter(
      signer,
      deps.pkiPublicUrl,
      groupCommit,
      new CustomExtensionArcs(tables.customExtensionArcs),
      tables.mintFacts,
    );
    return {
      module: IssuanceModule,
      controllers: [
        CertificateAuthorityController,
        CertificatesController,
        ExpiryReportController,
        SigningController,
        IssuancePolicyController,
        CrlRevocationsController,
        ReplacementController,
      ],
      providers: [
        {
          provide: InitializeCaHandler,
          useValue: new InitializeCaHandler(caHandlers),
        },
        {
          provide: IssueCertificateHandler,
          useValue: new IssueCertificateHandler(minter, tables.certificates, deps.keyAlgorithm),
        },
        {
          provide: RenewCertificateHandler,
          useValue: new RenewCertificateHandler(tables.certificates, minter, deps.keyAlgorithm),
        },
        { provide: RevokeCertificateHandler, useValue: revokeHandler },
        { provide: RevocationJobRunner, useValue: jobRunner },
        {
          provide: RevokeMatchingHandler,
          useValue: new RevokeMatchingHandler(deps.database, (jobId) => jobRunner.kick(jobId)),
        },
        {
          provide: ReleaseHoldHandler,
          useValue: new ReleaseHoldHandler(deps.database, nudge, deps.defaultCertificateLimit, publication),
        },
        { provide: ResponderPublication, useValue: publication },
        { provide: CertificateStore, useValue: tables.certificates },
        {
          provide: ExternalRootHandler,
          useValue: new ExternalRootHandler(caHandlers),
        },
        { provide: CaQueries, useValue: new CaQueries(tables.cas, tables.pendingCas) },
        { provide: CertificateReplacements, useValue: new CertificateReplacements(deps.database, nudge) },
        { provide: RevokeCaHandler, useValue: new RevokeCaHandler(deps.database, nudge, publication) },
        {
          provide: RevokeCrossCertificateHandler,
          useValue: new RevokeCrossCertificateHandler(deps.database, nudge, publication),
        },
        { provide: AddIssuingCaHandler, useValue: addIssuingCa },
        {
          provide: RenewRootHandler,
          useValue: new RenewRootHandler(caHandlers, signer),
        },
        { provide: CertificateQueries, useValue: new CertificateQueries(tables) },
        {
          provide: CertificateInventory,
          useValue: new CertificateInventory(tables.inventory, tables.inventoryCursorKeys),
        },
        { provide: ExpiryReporter, useValue: new ExpiryReporter(tables.expiringCertificates) },
        {
          provide: SignCrlHandler,
          useValue: new SignCrlHandler(
            signer,
            deps.blobs,
            new CrlLedgerCheck(tables.crlEntries, tables.crlNumbers),
          ),
        },
        {
          provide: IssueOcspSignerHandler,
          useValue: new IssueOcspSignerHandler(signer, deps.database, nudge),
        },
        {
          provide: IssuancePolicyHandler,
          useValue: new IssuancePolicyHandler(policies, tables.cas, addIssuingCa),
        },
      ],
    };
  }
}
