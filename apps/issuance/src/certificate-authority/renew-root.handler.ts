import { randomUUID, type webcrypto } from 'node:crypto';
import {
  CaError,
  CaRole,
  EventType,
  IssuingCaAddedPayload,
  KeyAlgorithm,
  RenewRootCommand,
  RenewRootRequest,
  RenewRootResult,
  RootRenewedPayload,
  assertCommandFields,
} from '@ca/contracts';
import { assertOfferedKeyAlgorithm, validateDto } from '@ca/domain';
import { CustodiedKey, CUSTODY_ALGORITHM } from '@ca/custody';
import { isUniqueViolation } from '@ca/persistence';
import {
  buildCaCertificate,
  buildCrossCertificate,
  derToPem,
  randomSerialNumber,
  serialToHex,
  useProviderForKey,
  validityOfYears,
} from '@ca/pki';
import { caDistributionPointsFor } from '../certificates/distribution-points';
import { KEY_ALGORITHM } from './ca-queries';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { CertificateAuthoritySigner } from './certificate-authority.signer';
import { crossCertificatesFrom } from './cross-chain';
import { issuingCaSubjectName } from './issuing-ca-name';
import { issuingCaProfile } from './issuing-ca-profile';
import { IssuanceTables } from '../issuance-database.store';
import { assertRootHeldHere } from './root-held-here';
import { CaHandlerDependencies } from './ca-handler-dependencies';

const YEAR_MS = 365.25 * 86_400_000;
const NO_CA = 'This tenant has no certificate authority; initialize one with POST /v2/ca/initialize first.';

/** A key made in custody for a CA not stored yet. */
interface NewKey {
  caId: string;
  /** Which custody holds it: a new root's key may be in a token of its own. */
  role: CaRole;
  key: CustodiedKey;
  publicKey: webcrypto.CryptoKey;
}

/**
 * docs/api.md#renew-the-root: a new root (new key, same subject, no pathLenConstraint), the cross
 * certificate the current root signs for it (the new root's subject and key; RFC 5280 6.1.4 (l):
 * self-issued, so it does not count against a pathLenConstraint of the old root, though GnuTLS
 * counts it: hence roots carry none, and the chain also verifies there), and a new issuing
 * CA under the new root, which signs the tenant's leaves from the answer on. The old root and the
 * old issuing CA become `retired`: they sign no new certificate but keep their CRLs and OCSP for
 * what they signed. Retiring, storing, `ca.root-renewed` and `ca.issuing-added` commit together,
 * under a lock on the old root's row, so of two concurrent renewals one succeeds and the other
 * gets 409 with nothing changed.
 */
export class RenewRootHandler {
  constructor(
    private readonly deps: CaHandlerDependencies,
    private readonly signer: CertificateAuthoritySigner,
  ) {}

  async execute(command: RenewRootCommand): Promise<RenewRootResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(RenewRootRequest, command.request ?? {});
    const { tenantId } = command;
    const current = await this.deps.database.tables.cas.currentRoot(tenantId);
    if (!current) throw CaError.notFound(NO_CA);
    assertRootHeldHere(current);
    const now = new Date();
    if (current.notAfter.getTime() <= now.getTime()) {
      throw CaError.conflict(
        "This tenant's root has expired: it can sign no cross certificate. Initialize a new tenant CA instead.",
      );
    }
    const { authority: oldRoot, privateKey: oldRootKey } = await this.signer.rootOf(tenantId);
    if (request.keyAlgorithm)
      assertOfferedKeyAlgorithm(request.keyAlgorithm, this.deps.deploymentKeyAlgorithm);
    const keyAlgorithm =
      request.keyAlgorithm ?? KEY_ALGORITHM[oldRoot.keyAlgorithm] ?? this.deps.deploymentKeyAlgorithm;
    const lifetimeYears = Math.round((oldRoot.notAfter.getTime() - oldRoot.notBefore.getTime()) / YEAR_MS);
    const { notBefore, notAfter } = validityOfYears(request.validityYears ?? Math.max(lifetimeYears, 1), now);

    const made: NewKey[] = [];
    try {
      for (const role of [CaRole.Root, CaRole.Issuing]) {
        const caId = randomUUID();
        const generated = await this.deps.custodies
          .forRole(role)
          .generateSigningKey({ tenantId, keyId: caId }, CUSTODY_ALGORITHM[keyAlgorithm]);
        made.push({ caId, role, ...generated });
      }
      const [root, issuing] = made;
      const result = await this.deps.database.transaction((tables) =>
        this.storeNew(tables, command, {
          oldRoot,
          oldRootKey,
          root,
          issuing,
          keyAlgorithm,
          notBefore,
          notAfter,
        }),
      );
      this.deps.onEventsRecorded();
      return result;
    } catch (error) {
      // Not stored, so never to be used: a token key would otherwise stay in the token for good.
      for (const { caId, role, key } of made) {
        await this.deps.custodies
          .forRole(role)
          .destroySigningKey({ tenantId, keyId: caId }, key)
          .catch(() => undefined);
      }
      if (isUniqueViolation(error)) {
        throw CaError.conflict("The tenant's root was renewed at the same moment; list the CAs and retry.");
      }
      throw error;
    }
  }

  private async storeNew(
    { cas, outbox, policies }: IssuanceTables,
    command: RenewRootCommand,
    made: {
      oldRoot: CertificateAuthorityEntity;
      oldRootKey: webcrypto.CryptoKey;
      root: NewKey;
      issuing: NewKey;
      keyAlgorithm: KeyAlgorithm;
      notBefore: Date;
      notAfter: Date;
    },
  ): Promise<RenewRootResult> {
    const { tenantId, principal } = command;
    const { oldRoot, oldRootKey, root, issuing, keyAlgorithm, notBefore, notAfter } = made;
    const locked = await cas.lock(oldRoot.id);
    if (!locked || locked.retiredAt) {
      throw CaError.conflict("The tenant's root was renewed at the same moment; list the CAs and retry.");
    }
    const previous = await cas.currentIssuing(tenantId);
    const generation = (await cas.countIssuing(tenantId)) + 1;
    // The subject stays the old root's: docs/api.md#renew-the-root explains why.
    const subject = {
      commonName: oldRoot.commonName,
      organization: oldRoot.organization,
      country: oldRoot.country,
    };
    const oldRootPaths = caDistributionPointsFor(this.deps.pkiPublicUrl, tenantId, oldRoot.id);
    const newRootPaths = caDistributionPointsFor(this.deps.pkiPublicUrl, tenantId, root.caId);

    const rootSerial = randomSerialNumber();
    const rootKey = await this.open(tenantId, root);
    const rootDer = await buildCaCertificate(
      { subject, notBefore, notAfter, serialNumber: rootSerial },
      { publicKey: root.publicKey, privateKey: rootKey },
    );
    const oldRootDer = new Uint8Array(oldRoot.certificateDer);
    const crossDer = await buildCrossCertificate(
      rootDer,
      {
        serialNumber: randomSerialNumber(),
        crlDistributionPointUrl: oldRootPaths.crlUrl,
        caIssuersUrl: oldRootPaths.caIssuersUrl,
      },
      { certificateDer: oldRootDer, privateKey: oldRootKey },
    );
    const issuingSubject = { ...subject, commonName: issuingCaSubjectName(subject.commonName, generation) };
    // The issuing CA profile of every issuing CA, with the EKU and name constraints of the tenant policy
    // read under the root lock (docs/api.md#issuance-policy).
    const profile = issuingCaProfile(this.deps.pkiPublicUrl, tenantId, await policies.policyOf(tenantId), {
      subject: issuingSubject,
      notBefore,
      notAfter,
      crlDistributionPointUrl: newRootPaths.crlUrl,
    });
    const issuingSerial = profile.serialNumber;
    const issuingDer = await buildCaCertificate(
      // The new root; a client that trusts only the old one needs the cross certificate (chainPem).
      { ...profile, caIssuersUrl: newRootPaths.caIssuersUrl },
      { publicKey: issuing.publicKey, privateKey: await this.open(tenantId, issuing) },
      { certificateDer: rootDer, privateKey: rootKey },
    );

    const retiredAt = new Date();
    // A root that signed the leaves itself keeps its one CRL at its own path (docs/api.md#add-an-issuing-ca).
    await cas.retireRoot(oldRoot.id, retiredAt, previous === null);
    if (previous) await cas.retire(previous.id, retiredAt);
    const common = {
      tenantId,
      keyCustody: this.deps.custodyKind,
      createdAt: retiredAt,
      createdBy: principal,
      notBefore,
      notAfter,
    };
    await cas.insert({
      ...common,
      id: root.caId,
      role: CaRole.Root,
      issuerCaId: null,
      ...subject,
      serialNumber: serialToHex(rootSerial),
      certificateDer: Buffer.from(rootDer),
      keyAlgorithm: root.key.algorithm,
      publicKeySpki: Buffer.from(root.key.publicKeySpki),
      wrappedKey: Buffer.from(root.key.wrapped),
      // The issuing CAs it signs name its own CRL and certificate paths.
      ownDistributionPoints: true,
      previousRootCaId: oldRoot.id,
      crossCertificateDer: Buffer.from(crossDer),
    });
    await cas.insert({
      ...common,
      id: issuing.caId,
      role: CaRole.Issuing,
      issuerCaId: root.caId,
      ...issuingSubject,
      serialNumber: serialToHex(issuingSerial),
      certificateDer: Buffer.from(issuingDer),
      keyAlgorithm: issuing.key.algorithm,
      publicKeySpki: Buffer.from(issuing.key.publicKeySpki),
      wrappedKey: Buffer.from(issuing.key.wrapped),
      ownDistributionPoints: true,
    });
    await outbox.record<RootRenewedPayload>(EventType.RootRenewed, {
      tenantId,
      caId: root.caId,
      certificateDer: Buffer.from(rootDer).toString('base64'),
      notBefore: notBefore.toISOString(),
      notAfter: notAfter.toISOString(),
      keyAlgorithm,
      previousRootCaId: oldRoot.id,
      crossCertificateDer: Buffer.from(crossDer).toString('base64'),
      renewedBy: principal,
    });
    await outbox.record<IssuingCaAddedPayload>(EventType.IssuingCaAdded, {
      tenantId,
      caId: issuing.caId,
      certificateDer: Buffer.from(issuingDer).toString('base64'),
      notBefore: notBefore.toISOString(),
      notAfter: notAfter.toISOString(),
      issuerCaId: root.caId,
      rootCertificateDer: Buffer.from(rootDer).toString('base64'),
      previousCaId: previous?.id ?? oldRoot.id,
      addedBy: principal,
    });
    // Older cross certificates too, for partners still on an older root (docs/api.md#chains).
    const olderCrosses = await crossCertificatesFrom(cas, oldRoot.id);
    const issuingPem = derToPem(issuingDer);
    return {
      caId: root.caId,
      certificatePem: derToPem(rootDer),
      expiresAt: notAfter.toISOString(),
      keyAlgorithm,
      crossCertificatePem: derToPem(crossDer),
      retiredRootCaId: oldRoot.id,
      issuingCa: {
        caId: issuing.caId,
        certificatePem: issuingPem,
        chainPem: [
          issuingPem,
          derToPem(crossDer),
          ...olderCrosses.map((der) => derToPem(new Uint8Array(der))),
        ].join(''),
        expiresAt: notAfter.toISOString(),
      },
      ...(previous ? { retiredCaId: previous.id } : {}),
    };
  }

  private async open(tenantId: string, made: NewKey): Promise<webcrypto.CryptoKey> {
    const { privateKey, crypto } = await this.deps.custodies
      .forRole(made.role)
      .openSigningKey({ tenantId, keyId: made.caId }, made.key);
    useProviderForKey(privateKey, crypto); // a token's key signs through the token's provider
    return privateKey;
  }
}
