import { randomUUID, X509Certificate } from 'node:crypto';
import {
  AddIssuingCaCommand,
  AddIssuingCaRequest,
  AddPendingIssuingCaResult,
  assertCommandFields,
  CaError,
  CaHierarchy,
  CaInitializedPayload,
  CaRole,
  ErrorCode,
  EventType,
  IssuingCaAddedPayload,
  InitializeCaV2Command,
  InitializeCaV2Request,
  InitializeExternalRootResult,
  KeyAlgorithm,
  UploadCaCertificateCommand,
  UploadCaCertificateRequest,
  UploadCaCertificateResult,
} from '@ca/contracts';
import { caKeyAlgorithmFor, validateDto } from '@ca/domain';
import { KeyCustody, CUSTODY_ALGORITHM } from '@ca/custody';
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
import { IssuanceTables } from '../issuance-database.store';
import { ALREADY_EXISTS, lockCaInitialization } from './ca-initialization-lock';
import { KEY_ALGORITHM } from './ca-queries';
import { CaStore } from './ca.store';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { issuingCaBaseName, issuingCaSubjectName } from './issuing-ca-name';
import { EXTERNAL_KEY_CUSTODY, PendingCaEntity } from './pending-ca.entity';
import { CaHandlerDependencies } from './ca-handler-dependencies';

const SECOND_PENDING =
  'This tenant has a pending issuing CA already: upload its certificate (PUT /v2/ca/{caId}/certificate) before asking for another.';

/** The error code of each refusal of an upload (docs/api.md#errors). */
const UPLOAD_REFUSAL: Record<UploadedCaChainProblem, ErrorCode> = {
  unreadable: ErrorCode.CaCertificateInvalid,
  'key-mismatch': ErrorCode.CaCertificateKeyMismatch,
  'not-ca': ErrorCode.CaCertificateNotCa,
  'not-valid-now': ErrorCode.CaCertificateNotValidNow,
  signature: ErrorCode.CaChainSignatureInvalid,
  'issuer-not-ca': ErrorCode.CaChainIssuerNotCa,
  'path-length': ErrorCode.CaChainPathLengthExceeded,
  'outlives-chain': ErrorCode.CaCertificateOutlivesChain,
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
 *
 * `addPending` is the rollover under that root (docs/api.md#add-an-issuing-ca): a new key and CSR,
 * pending while the current CA keeps signing. Its upload must end at the root already recorded;
 * then it is stored like a CA of our rollover (its own CDP/AIA paths), the previous one is retired
 * (its CRL and OCSP stay, for its leaves) and `ca.issuing-added` tells the distribution surface.
 */
export class ExternalRootHandler {
  constructor(private readonly deps: CaHandlerDependencies) {}

  /** The CA made here is an issuing CA (the root is held outside): the main token's key. */
  private get custody(): KeyCustody {
    return this.deps.custodies.forRole(CaRole.Issuing);
  }

  async initialize(command: InitializeCaV2Command): Promise<InitializeExternalRootResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(InitializeCaV2Request, command.request);
    const { tenantId, principal } = command;
    const keyAlgorithm = caKeyAlgorithmFor(request.keyAlgorithm, this.deps.deploymentKeyAlgorithm);
    await this.deps.database.transaction(({ cas }) => lockCaInitialization(cas, tenantId));
    const subject = {
      commonName: issuingCaSubjectName(request.commonName),
      organization: request.organization,
      country: request.country,
    };
    const pending = await this.makePending(
      tenantId,
      principal,
      subject,
      keyAlgorithm,
      ALREADY_EXISTS,
      ({ cas }) => lockCaInitialization(cas, tenantId),
    );
    return {
      hierarchy: CaHierarchy.ExternalRoot,
      keyAlgorithm,
      issuingCa: { caId: pending.caId, csrPem: pending.csrPem, state: 'pending' },
    };
  }

  /** Whether the tenant's root is a corporate root (no key of it here): POST /v2/ca/issuing is `addPending`. */
  async rootHeldOutside(tenantId: string): Promise<boolean> {
    return this.deps.database.tables.cas.rootHeldOutside(tenantId);
  }

  /**
   * POST /v2/ca/issuing under a corporate root (docs/api.md#add-an-issuing-ca): a new pending CA
   * with its CSR, named after the first issuing CA with its number (` Issuing CA N`, N counting the
   * tenant's issuing CAs, so no two share a subject). Nothing else changes until its upload: the
   * current CA keeps signing leaves. One pending CA per tenant (409 CONFLICT for a second).
   */
  async addPending(command: AddIssuingCaCommand): Promise<AddPendingIssuingCaResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(AddIssuingCaRequest, command.request ?? {});
    if (request.validityDays !== undefined) {
      throw CaError.validation([
        {
          field: 'validityDays',
          message:
            'the corporate CA sets the validity of the issuing CA it certifies; leave validityDays out',
        },
      ]);
    }
    const { tenantId, principal } = command;
    const issuing = await this.deps.database.tables.cas.issuingOf(tenantId);
    const current = issuing.find((row) => row.retiredAt === null);
    if (!current) throw CaError.notFound('This tenant has no issuing CA yet: upload the pending one first.');
    await this.refuseSecondPending(this.deps.database.tables, tenantId);
    const keyAlgorithm = request.keyAlgorithm ?? KEY_ALGORITHM[current.keyAlgorithm] ?? KeyAlgorithm.P256;
    const subject = {
      commonName: issuingCaSubjectName(issuingCaBaseName(issuing[0].commonName), issuing.length + 1),
      organization: current.organization,
      country: current.country,
    };
    const pending = await this.makePending(
      tenantId,
      principal,
      subject,
      keyAlgorithm,
      SECOND_PENDING,
      (tables) => this.refuseSecondPending(tables, tenantId),
    );
    return { caId: pending.caId, state: 'pending', csrPem: pending.csrPem, keyAlgorithm };
  }

  /**
   * Makes the CA's key in custody and its CSR, and stores both as the tenant's pending CA once
   * `check` passes in the storing transaction. A key not stored is destroyed; a second pending CA
   * of the tenant (pending_cas_one_per_tenant, a concurrent request) is 409 CONFLICT `duplicate`.
   */
  private async makePending(
    tenantId: string,
    principal: string,
    subject: { commonName: string; organization: string; country: string },
    keyAlgorithm: KeyAlgorithm,
    duplicate: string,
    check: (tables: IssuanceTables) => Promise<void>,
  ): Promise<{ caId: string; csrPem: string }> {
    const caId = randomUUID();
    const ctx = { tenantId, keyId: caId };
    const { key, publicKey } = await this.custody.generateSigningKey(ctx, CUSTODY_ALGORITHM[keyAlgorithm]);
    let csrDer: Uint8Array;
    try {
      const { privateKey, crypto } = await this.custody.openSigningKey(ctx, key);
      useProviderForKey(privateKey, crypto); // a token's key signs through the token's provider
      csrDer = await buildCaCertificationRequest(subject, { publicKey, privateKey });
      await this.deps.database.transaction(async (tables) => {
        await check(tables);
        await tables.pendingCas.insert(
          Object.assign(new PendingCaEntity(), {
            id: caId,
            tenantId,
            ...subject,
            keyCustody: this.deps.custodyKind,
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
      if (isUniqueViolation(error)) throw CaError.conflict(duplicate);
      throw error;
    }
    return { caId, csrPem: derToPem(csrDer, 'CERTIFICATE REQUEST') };
  }

  /** 409 CONFLICT while the tenant has a pending CA: its upload (or nothing) comes first. */
  private async refuseSecondPending({ pendingCas }: IssuanceTables, tenantId: string): Promise<void> {
    const pending = await pendingCas.ofTenant(tenantId);
    if (pending) {
      throw CaError.conflict(
        `This tenant has a pending issuing CA already (${pending.id}): upload its certificate (PUT /v2/ca/${pending.id}/certificate) before asking for another.`,
      );
    }
  }

  async upload(command: UploadCaCertificateCommand): Promise<UploadCaCertificateResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', caId: 'uuid' });
    const request = await validateDto(UploadCaCertificateRequest, command.request);
    const { tenantId, caId, principal } = command;
    const result = await this.deps.database.transaction(async (tables) => {
      const { cas, pendingCas, outbox } = tables;
      const pending = await pendingCas.lock(caId, tenantId);
      if (!pending) throw await this.notPending(cas, tenantId, caId);
      const chain = this.checked(request, pending);
      // A later issuing CA (docs/api.md#add-an-issuing-ca): under the root recorded at the first upload.
      const recordedRoot = await cas.lockRoot(tenantId);
      if (recordedRoot) return this.storeLater(tables, { pending, chain, root: recordedRoot, principal });
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
      const issuingRow = uploadedIssuingCa(pending, chain, rootRow.id, now, principal);
      await cas.insert(rootRow);
      await cas.insert(issuingRow);
      await pendingCas.remove(pending.id);
      const keyAlgorithm = KEY_ALGORITHM[pending.keyAlgorithm] ?? KeyAlgorithm.P256;
      await outbox.record<CaInitializedPayload>(EventType.CaInitialized, {
        tenantId,
        caId: rootRow.id,
        certificateDer: Buffer.from(chain.rootDer).toString('base64'),
        notBefore: root.notBefore.toISOString(),
        notAfter: root.notAfter.toISOString(),
        keyAlgorithm,
        issuingCaId: issuingRow.id,
        issuingCertificateDer: Buffer.from(chain.certificateDer).toString('base64'),
        issuingNotAfter: issuingRow.notAfter.toISOString(),
        externalRoot: true,
        initializedBy: principal,
      });
      return uploadAnswer(issuingRow, chain.rootDer, keyAlgorithm);
    });
    this.deps.onEventsRecorded();
    return result;
  }

  /**
   * The upload of a later issuing CA: its chain must end at the tenant's corporate root (the same
   * certificate), its trust anchor, else CA_CHAIN_ROOT_MISMATCH and nothing changes. The CA is
   * stored as our rollover stores one (add-issuing-ca.handler.ts): its leaves get its own CDP and
   * caIssuers paths (`ownDistributionPoints`), so old and new leaves each name their issuer's CRL
   * and certificate; the previous CA is retired and keeps its CRL and OCSP for its leaves; and
   * `ca.issuing-added` makes revocation publish the new CA's CRL and the responder serve it.
   */
  private async storeLater(
    { cas, pendingCas, outbox }: IssuanceTables,
    made: {
      pending: PendingCaEntity;
      chain: ReturnType<typeof checkUploadedCaChain>;
      root: CertificateAuthorityEntity;
      principal: string;
    },
  ): Promise<UploadCaCertificateResult> {
    const { pending, chain, root, principal } = made;
    const { tenantId } = pending;
    if (!root.certificateDer.equals(Buffer.from(chain.rootDer))) {
      const message =
        "chainPem must end with the tenant's corporate root (ca.pem): this one ends at another self-signed root";
      throw new CaError(ErrorCode.CaChainRootMismatch, message, [{ field: 'chainPem', message }]);
    }
    const previous = await cas.currentIssuing(tenantId);
    const now = new Date();
    // Retired first: a tenant has one issuing CA not retired at any moment (a unique index).
    if (previous) await cas.retire(previous.id, now);
    const issuingRow = uploadedIssuingCa(pending, chain, root.id, now, principal);
    // Leaves at {base}/ca/{caId}/crl and {base}/ca/{caId}.crt (docs/api.md#add-an-issuing-ca).
    issuingRow.ownDistributionPoints = true;
    await cas.insert(issuingRow);
    await pendingCas.remove(pending.id);
    await outbox.record<IssuingCaAddedPayload>(EventType.IssuingCaAdded, {
      tenantId,
      caId: pending.id,
      certificateDer: Buffer.from(chain.certificateDer).toString('base64'),
      notBefore: issuingRow.notBefore.toISOString(),
      notAfter: issuingRow.notAfter.toISOString(),
      issuerCaId: root.id,
      rootCertificateDer: root.certificateDer.toString('base64'),
      previousCaId: previous?.id ?? root.id,
      addedBy: principal,
    });
    return {
      ...uploadAnswer(issuingRow, chain.rootDer, KEY_ALGORITHM[pending.keyAlgorithm] ?? KeyAlgorithm.P256),
      ...(previous ? { retiredCaId: previous.id } : {}),
    };
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
  private async notPending(cas: CaStore, tenantId: string, caId: string): Promise<CaError> {
    const known = await cas.hasOfTenant(tenantId, caId);
    return known
      ? CaError.conflict('This CA is not pending: its certificate is set once, when it is uploaded.')
      : CaError.notFound('No CA of this tenant has this id.');
  }
}

/** The corporate root's key as GET /v2/ca names keys (docs/api.md#key-algorithms), or its own kind. */
/** The issuing CA row of a pending CA whose certificate (and chain) the corporate CA made. */
function uploadedIssuingCa(
  pending: PendingCaEntity,
  chain: ReturnType<typeof checkUploadedCaChain>,
  issuerCaId: string,
  now: Date,
  principal: string,
): CertificateAuthorityEntity {
  const issuing = parseCertificate(chain.certificateDer);
  return Object.assign(new CertificateAuthorityEntity(), {
    id: pending.id,
    tenantId: pending.tenantId,
    role: CaRole.Issuing,
    issuerCaId,
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
    externalIntermediatesPem: chain.intermediatesDer.map((der) => derToPem(der)).join('') || null,
    createdAt: now,
    createdBy: principal,
  });
}

/** The answer to an upload: the CA, now active, its chain up to the corporate root (excluded). */
function uploadAnswer(
  issuingRow: CertificateAuthorityEntity,
  rootDer: Uint8Array,
  keyAlgorithm: KeyAlgorithm,
) {
  const certificatePem = derToPem(issuingRow.certificateDer);
  return {
    caId: issuingRow.id,
    state: 'active' as const,
    certificatePem,
    chainPem: certificatePem + (issuingRow.externalIntermediatesPem ?? ''),
    rootCertificatePem: derToPem(rootDer),
    expiresAt: issuingRow.notAfter.toISOString(),
    keyAlgorithm,
  };
}

function externalKeyAlgorithm(certificate: X509Certificate): string {
  const { asymmetricKeyType: type, asymmetricKeyDetails: details } = certificate.publicKey;
  if (type === 'ec') {
    const curve = { prime256v1: 'ECDSA-P256', secp384r1: 'ECDSA-P384' }[details?.namedCurve ?? ''];
    return curve ?? `EC-${details?.namedCurve ?? 'unknown'}`;
  }
  if (type === 'rsa') return `RSA-${details?.modulusLength ?? 0}`;
  return String(type ?? 'unknown').toUpperCase();
}
