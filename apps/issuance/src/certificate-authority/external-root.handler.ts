import { randomUUID, X509Certificate } from 'node:crypto';
import {
  assertCommandFields,
  CaError,
  CaHierarchy,
  CaInitializedPayload,
  CaRole,
  ErrorCode,
  EventType,
  InitializeCaV2Command,
  InitializeCaV2Request,
  InitializeExternalRootResult,
  KeyAlgorithm,
  DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
  caKeyAlgorithmFor,
  UploadCaCertificateCommand,
  UploadCaCertificateRequest,
  UploadCaCertificateResult,
  validateDto,
} from '@ca/contracts';
import { KeyCustody, CUSTODY_ALGORITHM } from '@ca/custody';
import { recordEvent } from '@ca/messaging';
import { isUniqueViolation } from '@ca/persistence';
import {
  buildCaCertificationRequest,
  checkUploadedCaChain,
  derToPem,
  parseCertificate,
  type UploadedCaChainProblem,
  UploadedCaChainError,
  useProviderForKey,
} from '@ca/pki';
import { DataSource, EntityManager } from 'typeorm';
import { CaKeyCustodies } from '../custody/ca-key-custodies';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ALREADY_EXISTS, lockCaInitialization } from './ca-initialization-lock';
import { KEY_ALGORITHM } from './ca-queries';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { issuingCaSubjectName } from './issuing-ca-name';
import { EXTERNAL_KEY_CUSTODY, PendingCaEntity } from './pending-ca.entity';

/** The error code of each refusal of an upload (docs/api.md#errors). */
const UPLOAD_REFUSAL: Record<UploadedCaChainProblem, ErrorCode> = {
  unreadable: ErrorCode.CaCertificateInvalid,
  'key-mismatch': ErrorCode.CaCertificateKeyMismatch,
  'not-ca': ErrorCode.CaCertificateNotCa,
  'not-valid-now': ErrorCode.CaCertificateNotValidNow,
  signature: ErrorCode.CaChainSignatureInvalid,
  'issuer-not-ca': ErrorCode.CaChainIssuerNotCa,
  'path-length': ErrorCode.CaChainPathLengthExceeded,
};

/**
 * docs/api.md#external-root: an issuing CA certified by the tenant's own (corporate) root.
 *
 * `initialize` makes the CA's key in custody (local or PKCS#11, as every CA key) and a CSR for it,
 * and keeps both as a pending CA: nothing is signed with it yet. `upload` takes the certificate the
 * corporate CA made from that CSR, with its issuers up to the root; once every check passes, the CA
 * becomes an issuing CA like ours (it signs the tenant's leaves, its CRL is `/crl`), the root is
 * stored as the tenant's trust anchor without a key, and `ca.initialized` (with `externalRoot`)
 * lets revocation and the responder serve them — all in one transaction.
 */
export class ExternalRootHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly custodies: CaKeyCustodies,
    private readonly custodyKind: string,
    private readonly onEventsRecorded: () => void,
    /** KEY_ALGORITHM: the key of the issuing CA made without a choice (docs/api.md#key-algorithms). */
    private readonly deploymentKeyAlgorithm: KeyAlgorithm = DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
  ) {}

  /** The CA made here is an issuing CA (the root is held outside): the main token's key. */
  private get custody(): KeyCustody {
    return this.custodies.forRole(CaRole.Issuing);
  }

  async initialize(command: InitializeCaV2Command): Promise<InitializeExternalRootResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(InitializeCaV2Request, command.request);
    const { tenantId, principal } = command;
    const keyAlgorithm = caKeyAlgorithmFor(request.keyAlgorithm, this.deploymentKeyAlgorithm);
    await this.dataSource.transaction((manager) => lockCaInitialization(manager, tenantId));

    const caId = randomUUID();
    const ctx = { tenantId, keyId: caId };
    const { key, publicKey } = await this.custody.generateSigningKey(ctx, CUSTODY_ALGORITHM[keyAlgorithm]);
    const subject = {
      commonName: issuingCaSubjectName(request.commonName),
      organization: request.organization,
      country: request.country,
    };
    let csrDer: Uint8Array;
    try {
      const { privateKey, crypto } = await this.custody.openSigningKey(ctx, key);
      useProviderForKey(privateKey, crypto); // a token's key signs through the token's provider
      csrDer = await buildCaCertificationRequest(subject, { publicKey, privateKey });
      await this.dataSource.transaction(async (manager) => {
        await lockCaInitialization(manager, tenantId);
        await manager.insert(
          PendingCaEntity,
          Object.assign(new PendingCaEntity(), {
            id: caId,
            tenantId,
            ...subject,
            keyCustody: this.custodyKind,
            keyAlgorithm: key.algorithm,
            publicKeySpki: Buffer.from(key.publicKeySpki),
            wrappedKey: Buffer.from(key.wrapped),
            csrDer: Buffer.from(csrDer),
            createdAt: new Date(),
            createdBy: principal,
          }),
        );
      });
    } catch (error) {
      // Not stored, so never to be used: a token key would otherwise stay in the token for good.
      await this.custody.destroySigningKey(ctx, key).catch(() => undefined);
      if (isUniqueViolation(error)) throw CaError.conflict(ALREADY_EXISTS);
      throw error;
    }
    return {
      hierarchy: CaHierarchy.ExternalRoot,
      keyAlgorithm,
      issuingCa: { caId, csrPem: derToPem(csrDer, 'CERTIFICATE REQUEST'), state: 'pending' },
    };
  }

  async upload(command: UploadCaCertificateCommand): Promise<UploadCaCertificateResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', caId: 'uuid' });
    const request = await validateDto(UploadCaCertificateRequest, command.request);
    const { tenantId, caId, principal } = command;
    const result = await this.dataSource.transaction(async (manager) => {
      const pending = await manager.findOne(PendingCaEntity, {
        where: { id: caId, tenantId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!pending) throw await this.notPending(manager, tenantId, caId);
      const chain = this.checked(request, pending);
      const now = new Date();
      const root = parseCertificate(chain.rootDer);
      const rootNode = new X509Certificate(chain.rootDer);
      const rootRow = Object.assign(new CertificateAuthorityEntity(), {
        id: randomUUID(),
        tenantId,
        role: CaRole.Root,
        issuerCaId: null,
        commonName: root.subject.commonName ?? '',
        organization: root.subject.organization ?? '',
        country: root.subject.country ?? '',
        serialNumber: root.serialNumberHex,
        certificateDer: Buffer.from(chain.rootDer),
        notBefore: root.notBefore,
        notAfter: root.notAfter,
        keyCustody: EXTERNAL_KEY_CUSTODY,
        keyAlgorithm: externalKeyAlgorithm(rootNode),
        publicKeySpki: rootNode.publicKey.export({ type: 'spki', format: 'der' }),
        wrappedKey: Buffer.alloc(0), // no key of the corporate root is ever held
        createdAt: now,
        createdBy: principal,
      });
      const issuing = parseCertificate(chain.certificateDer);
      const intermediatesPem = chain.intermediatesDer.map((der) => derToPem(der)).join('');
      const issuingRow = Object.assign(new CertificateAuthorityEntity(), {
        id: pending.id,
        tenantId,
        role: CaRole.Issuing,
        issuerCaId: rootRow.id,
        commonName: issuing.subject.commonName ?? pending.commonName,
        organization: issuing.subject.organization ?? pending.organization,
        country: issuing.subject.country ?? pending.country,
        serialNumber: issuing.serialNumberHex,
        certificateDer: Buffer.from(chain.certificateDer),
        notBefore: issuing.notBefore,
        notAfter: issuing.notAfter,
        keyCustody: pending.keyCustody,
        keyAlgorithm: pending.keyAlgorithm,
        publicKeySpki: pending.publicKeySpki,
        wrappedKey: pending.wrappedKey,
        externalIntermediatesPem: intermediatesPem || null,
        createdAt: now,
        createdBy: principal,
      });
      await manager.insert(CertificateAuthorityEntity, rootRow);
      await manager.insert(CertificateAuthorityEntity, issuingRow);
      await manager.delete(PendingCaEntity, { id: pending.id });
      const keyAlgorithm = KEY_ALGORITHM[pending.keyAlgorithm] ?? KeyAlgorithm.P256;
      await recordEvent<CaInitializedPayload>(manager, ISSUANCE_SCHEMA, EventType.CaInitialized, {
        tenantId,
        caId: rootRow.id,
        certificateDer: Buffer.from(chain.rootDer).toString('base64'),
        notBefore: root.notBefore.toISOString(),
        notAfter: root.notAfter.toISOString(),
        keyAlgorithm,
        issuingCaId: issuingRow.id,
        issuingCertificateDer: Buffer.from(chain.certificateDer).toString('base64'),
        issuingNotAfter: issuing.notAfter.toISOString(),
        externalRoot: true,
        initializedBy: principal,
      });
      const certificatePem = derToPem(chain.certificateDer);
      return {
        caId: issuingRow.id,
        state: 'active' as const,
        certificatePem,
        chainPem: certificatePem + intermediatesPem,
        rootCertificatePem: derToPem(chain.rootDer),
        expiresAt: issuing.notAfter.toISOString(),
        keyAlgorithm,
      };
    });
    this.onEventsRecorded();
    return result;
  }

  private checked(request: UploadCaCertificateRequest, pending: PendingCaEntity) {
    try {
      return checkUploadedCaChain({
        certificatePem: request.certificatePem,
        chainPem: request.chainPem,
        publicKeySpki: new Uint8Array(pending.publicKeySpki),
        now: new Date(),
      });
    } catch (error) {
      if (error instanceof UploadedCaChainError) {
        const field = error.message.startsWith('chainPem') ? 'chainPem' : 'certificatePem';
        throw new CaError(UPLOAD_REFUSAL[error.problem], error.message, [{ field, message: error.message }]);
      }
      throw error;
    }
  }

  /** 409 for a CA of the tenant that is not pending (any more), else 404. */
  private async notPending(manager: EntityManager, tenantId: string, caId: string): Promise<CaError> {
    const known = await manager.exists(CertificateAuthorityEntity, { where: { id: caId, tenantId } });
    return known
      ? CaError.conflict('This CA is not pending: its certificate is set once, when it is uploaded.')
      : CaError.notFound('No CA of this tenant has this id.');
  }
}

/** The corporate root's key as GET /v2/ca names keys (docs/api.md#key-algorithms), or its own kind. */
function externalKeyAlgorithm(certificate: X509Certificate): string {
  const { asymmetricKeyType: type, asymmetricKeyDetails: details } = certificate.publicKey;
  if (type === 'ec') {
    const curve = { prime256v1: 'ECDSA-P256', secp384r1: 'ECDSA-P384' }[details?.namedCurve ?? ''];
    return curve ?? `EC-${details?.namedCurve ?? 'unknown'}`;
  }
  if (type === 'rsa') return `RSA-${details?.modulusLength ?? 0}`;
  return String(type ?? 'unknown').toUpperCase();
}
