import { randomUUID } from 'node:crypto';
import {
  CaError,
  CaHierarchy,
  CaInitializedPayload,
  CaRole,
  assertCommandFields,
  EventType,
  InitializeCaCommand,
  InitializeCaRequest,
  InitializeCaResult,
  InitializeCaV2Command,
  InitializeCaV2Request,
  InitializeCaV2Result,
  KeyAlgorithm,
} from '@ca/contracts';
import { caKeyAlgorithmFor, validateDto } from '@ca/domain';
import { CustodiedKey, CUSTODY_ALGORITHM } from '@ca/custody';
import { isUniqueViolation } from '@ca/persistence';
import {
  buildCaCertificate,
  type CaCertificateProfile,
  derToPem,
  randomSerialNumber,
  serialToHex,
  useProviderForKey,
  validityOfYears,
} from '@ca/pki';
import { distributionPointsFor } from '../certificates/distribution-points';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { issuingCaSubjectName } from './issuing-ca-name';
import { ALREADY_EXISTS, lockCaInitialization } from './ca-initialization-lock';
import { issuingCaProfile } from './issuing-ca-profile';
import { CaHandlerDependencies } from './ca-handler-dependencies';

/** One CA made but not yet stored: its row and the custody key to destroy if storing fails. */
interface MadeCa {
  row: CertificateAuthorityEntity;
  key: CustodiedKey;
  certificateDer: Uint8Array;
}

/**
 * docs/api.md#initialize-the-ca and #initialize-the-ca-v2: creates the tenant's self-signed root
 * and, for RootAndIssuing, an issuing CA under it (pathLenConstraint 0) that signs the tenant's
 * leaves from then on, so that the root key signs only issuing CAs and the root CRL. Keys are
 * generated inside custody and stored only wrapped; the CA rows and the `ca.initialized` event
 * commit together. A second initialization (even a concurrent one) gets 409 and changes nothing.
 */
export class InitializeCaHandler {
  constructor(private readonly deps: CaHandlerDependencies) {}

  /** /v1/ca/initialize: a root only, as before CA hierarchies existed, of the deployment's key algorithm. */
  async execute(command: InitializeCaCommand): Promise<InitializeCaResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(InitializeCaRequest, command.request);
    const { caId, certificatePem, expiresAt } = await this.initialize(
      command,
      request,
      CaHierarchy.RootOnly,
      this.deps.deploymentKeyAlgorithm,
    );
    return { caId, certificatePem, expiresAt };
  }

  /** /v2/ca/initialize: RootAndIssuing unless RootOnly is asked for, with the chosen key algorithm or the deployment's. */
  async executeV2(command: InitializeCaV2Command): Promise<InitializeCaV2Result> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(InitializeCaV2Request, command.request);
    return this.initialize(
      command,
      request,
      request.hierarchy ?? CaHierarchy.RootAndIssuing,
      caKeyAlgorithmFor(request.keyAlgorithm, this.deps.deploymentKeyAlgorithm),
    );
  }

  private async initialize(
    command: InitializeCaCommand,
    request: InitializeCaRequest,
    hierarchy: CaHierarchy,
    keyAlgorithm: KeyAlgorithm,
  ): Promise<InitializeCaV2Result> {
    const { tenantId, principal } = command;
    const { cas, pendingCas, policies } = this.deps.database.tables;
    if (await cas.hasAny(tenantId)) throw CaError.conflict(ALREADY_EXISTS);
    if (await pendingCas.exists(tenantId)) throw CaError.conflict(ALREADY_EXISTS);

    // Backdated a minute like every certificate, exactly validityYears long (docs/certificate-profile.md).
    const { notBefore, notAfter } = validityOfYears(request.validityYears, new Date());
    const subject = {
      commonName: request.commonName,
      organization: request.organization,
      country: request.country,
    };
    const made: MadeCa[] = [];
    try {
      // No pathLenConstraint on a root (as the CA/Browser Forum profile advises for roots): the
      // issuing CAs' pathLenConstraint 0 bounds the depth. A root renewal puts a self-issued cross
      // certificate under it, which RFC 5280 6.1.4 (l) does not count but GnuTLS does: with
      // pathLenConstraint 1, GnuTLS refused leaf -> issuing CA -> cross -> this root.
      const root = await this.makeCa(tenantId, principal, keyAlgorithm, CaRole.Root, {
        subject,
        notBefore,
        notAfter,
        serialNumber: randomSerialNumber(),
      });
      made.push(root);
      if (hierarchy === CaHierarchy.RootAndIssuing) {
        // EKU and name constraints from the policy set before initialization (docs/api.md#issuance-policy).
        const policy = await policies.policyOf(tenantId);
        made.push(
          await this.makeCa(
            tenantId,
            principal,
            keyAlgorithm,
            CaRole.Issuing,
            issuingCaProfile(this.deps.pkiPublicUrl, tenantId, policy, {
              subject: { ...subject, commonName: issuingCaSubjectName(request.commonName) },
              notBefore,
              notAfter, // within the root's; a leaf never outlives the CA that signs it
              crlDistributionPointUrl: distributionPointsFor(this.deps.pkiPublicUrl, tenantId).rootCrlUrl,
            }),
            root,
          ),
        );
      }
      await this.store(tenantId, principal, keyAlgorithm, made);
    } catch (error) {
      // Not stored, so never to be used: a token key would otherwise stay in the token for good.
      for (const { row, key } of made) {
        await this.deps.custodies
          .forRole(row.role)
          .destroySigningKey({ tenantId, keyId: row.id }, key)
          .catch(() => undefined);
      }
      if (isUniqueViolation(error)) throw CaError.conflict(ALREADY_EXISTS);
      throw error;
    }
    this.deps.onEventsRecorded();
    const [root, issuing] = made;
    return {
      caId: root.row.id,
      certificatePem: derToPem(root.certificateDer),
      expiresAt: root.row.notAfter.toISOString(),
      hierarchy,
      keyAlgorithm,
      ...(issuing
        ? {
            issuingCa: {
              caId: issuing.row.id,
              certificatePem: derToPem(issuing.certificateDer),
              expiresAt: issuing.row.notAfter.toISOString(),
            },
          }
        : {}),
    };
  }

  /** A key in custody and its CA certificate, self-signed or signed by `issuer`. */
  private async makeCa(
    tenantId: string,
    principal: string,
    keyAlgorithm: KeyAlgorithm,
    role: CaRole,
    profile: CaCertificateProfile,
    issuer?: MadeCa,
  ): Promise<MadeCa> {
    const caId = randomUUID();
    const ctx = { tenantId, keyId: caId };
    const custody = this.deps.custodies.forRole(role);
    const { key, publicKey } = await custody.generateSigningKey(ctx, CUSTODY_ALGORITHM[keyAlgorithm]);
    const made: MadeCa = { key, certificateDer: new Uint8Array(0), row: undefined as never };
    try {
      const { privateKey, crypto } = await custody.openSigningKey(ctx, key);
      useProviderForKey(privateKey, crypto);
      const issuerKey =
        issuer &&
        (await this.deps.custodies
          .forRole(issuer.row.role)
          .openSigningKey({ tenantId, keyId: issuer.row.id }, issuer.key));
      if (issuerKey) useProviderForKey(issuerKey.privateKey, issuerKey.crypto);
      made.certificateDer = await buildCaCertificate(
        profile,
        { publicKey, privateKey },
        issuer && issuerKey
          ? { certificateDer: issuer.certificateDer, privateKey: issuerKey.privateKey }
          : undefined,
      );
    } catch (error) {
      await custody.destroySigningKey(ctx, key).catch(() => undefined);
      throw error;
    }
    made.row = Object.assign(new CertificateAuthorityEntity(), {
      id: caId,
      tenantId,
      role,
      issuerCaId: issuer?.row.id ?? null,
      commonName: profile.subject.commonName,
      organization: profile.subject.organization,
      country: profile.subject.country,
      serialNumber: serialToHex(profile.serialNumber),
      certificateDer: Buffer.from(made.certificateDer),
      notBefore: profile.notBefore,
      notAfter: profile.notAfter,
      keyCustody: this.deps.custodyKind,
      keyAlgorithm: key.algorithm,
      publicKeySpki: Buffer.from(key.publicKeySpki),
      wrappedKey: Buffer.from(key.wrapped),
      createdAt: new Date(),
      createdBy: principal,
    });
    return made;
  }

  private async store(
    tenantId: string,
    principal: string,
    keyAlgorithm: KeyAlgorithm,
    made: MadeCa[],
  ): Promise<void> {
    const [root, issuing] = made;
    await this.deps.database.transaction(async ({ cas, outbox }) => {
      await lockCaInitialization(cas, tenantId);
      for (const { row } of made) await cas.insert(row);
      await outbox.record<CaInitializedPayload>(EventType.CaInitialized, {
        tenantId,
        caId: root.row.id,
        certificateDer: Buffer.from(root.certificateDer).toString('base64'),
        notBefore: root.row.notBefore.toISOString(),
        notAfter: root.row.notAfter.toISOString(),
        keyAlgorithm,
        ...(issuing
          ? {
              issuingCaId: issuing.row.id,
              issuingCertificateDer: Buffer.from(issuing.certificateDer).toString('base64'),
              issuingNotAfter: issuing.row.notAfter.toISOString(),
            }
          : {}),
        initializedBy: principal,
      });
    });
  }
}
