import { randomUUID, type webcrypto } from 'node:crypto';
import {
  AddIssuingCaCommand,
  AddIssuingCaRequest,
  AddIssuingCaResult,
  CaError,
  CaRole,
  EventType,
  IssuingCaAddedPayload,
  KeyAlgorithm,
  assertCommandFields,
} from '@ca/contracts';
import { assertOfferedKeyAlgorithm, validateDto } from '@ca/domain';
import { CustodiedKey, KeyCustody, CUSTODY_ALGORITHM } from '@ca/custody';
import { isUniqueViolation } from '@ca/persistence';
import { buildCaCertificate, derToPem, serialToHex, useProviderForKey, validityOfDays } from '@ca/pki';
import { caDistributionPointsFor, distributionPointsFor } from '../certificates/distribution-points';
import { IssuanceTables } from '../issuance-database.store';
import { KEY_ALGORITHM } from './ca-queries';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { CertificateAuthoritySigner } from './certificate-authority.signer';
import { crossCertificatesFrom } from './cross-chain';
import { issuingCaSubjectName } from './issuing-ca-name';
import { issuingCaProfile } from './issuing-ca-profile';
import type { TenantPolicy } from '../policy/issuance-policies';
import { CaHandlerDependencies } from './ca-handler-dependencies';

const DAY_MS = 86_400_000;

/**
 * A change of the tenant policy that makes this new issuing CA (docs/api.md#issuance-policy): the
 * CA carries the new policy's EKU and name constraints, and the policy is written in the same
 * transaction, so neither is stored without the other.
 */
export interface PolicyChange {
  /** The new policy; null when it is removed. */
  policy: TenantPolicy | null;
  /** Writes the policy change in the new CA's transaction. */
  write(tables: IssuanceTables): Promise<void>;
}

/**
 * docs/api.md#add-an-issuing-ca: a new issuing CA under the tenant's root (pathLenConstraint 0),
 * which signs the tenant's leaves from then on. For a tenant whose root signed leaves itself it
 * is the first issuing CA; otherwise it is a rollover and the previous issuing CA is retired:
 * it signs no new leaf, but keeps its CRL and OCSP answers for the leaves it signed until they
 * expire. Retiring, storing and `ca.issuing-added` commit together, under a lock on the root row,
 * so two concurrent requests make two CAs one after the other, never two current ones. The new
 * CA carries the name constraints of the tenant policy read under that lock (or of `policyChange`).
 */
export class AddIssuingCaHandler {
  constructor(
    private readonly deps: CaHandlerDependencies,
    private readonly signer: CertificateAuthoritySigner,
  ) {}

  /** An issuing CA's key: in the main token, never a root token (docs/operations.md#key-custody). */
  private get custody(): KeyCustody {
    return this.deps.custodies.forRole(CaRole.Issuing);
  }

  async execute(command: AddIssuingCaCommand, policyChange?: PolicyChange): Promise<AddIssuingCaResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(AddIssuingCaRequest, command.request ?? {});
    const { tenantId } = command;
    const { authority: root, privateKey: rootKey } = await this.signer.rootOf(tenantId);
    const now = new Date();
    if (root.notAfter.getTime() <= now.getTime()) {
      throw CaError.conflict("This tenant's root has expired: it can sign no new issuing CA.");
    }
    if (request.keyAlgorithm)
      assertOfferedKeyAlgorithm(request.keyAlgorithm, this.deps.deploymentKeyAlgorithm);
    const keyAlgorithm =
      request.keyAlgorithm ?? KEY_ALGORITHM[root.keyAlgorithm] ?? this.deps.deploymentKeyAlgorithm;
    const days = request.validityDays ?? Math.floor((root.notAfter.getTime() - now.getTime()) / DAY_MS);
    const { notBefore, notAfter: wanted } = validityOfDays(Math.max(days, 1), now, root.notBefore);
    // Without validityDays: up to the root's end; with it: refused past it, like a leaf past its CA.
    if (request.validityDays !== undefined && wanted > root.notAfter) {
      throw CaError.validation([
        {
          field: 'validityDays',
          message: `the issuing CA would expire after its root (${root.notAfter.toISOString()}); use fewer days`,
        },
      ]);
    }
    const notAfter = wanted > root.notAfter ? root.notAfter : wanted;

    const caId = randomUUID();
    const ctx = { tenantId, keyId: caId };
    const { key, publicKey } = await this.custody.generateSigningKey(ctx, CUSTODY_ALGORITHM[keyAlgorithm]);
    try {
      return await this.storeNew(command, {
        caId,
        key,
        publicKey,
        root,
        rootKey,
        keyAlgorithm,
        notBefore,
        notAfter,
        policyChange,
      });
    } catch (error) {
      // Not stored, so never to be used: a token key would otherwise stay in the token for good.
      await this.custody.destroySigningKey(ctx, key).catch(() => undefined);
      if (isUniqueViolation(error)) {
        throw CaError.conflict('Another issuing CA was added at the same moment; list the CAs and retry.');
      }
      throw error;
    }
  }

  private async storeNew(
    command: AddIssuingCaCommand,
    made: {
      caId: string;
      key: CustodiedKey;
      publicKey: webcrypto.CryptoKey;
      root: CertificateAuthorityEntity;
      rootKey: webcrypto.CryptoKey;
      keyAlgorithm: KeyAlgorithm;
      notBefore: Date;
      notAfter: Date;
      policyChange?: PolicyChange;
    },
  ): Promise<AddIssuingCaResult> {
    const { tenantId, principal } = command;
    const { caId, key, publicKey, root, rootKey, keyAlgorithm, notBefore, notAfter, policyChange } = made;
    const { privateKey, crypto } = await this.custody.openSigningKey({ tenantId, keyId: caId }, key);
    useProviderForKey(privateKey, crypto); // a token's key signs through the token's provider
    const result = await this.deps.database.transaction(async (tables) => {
      const { cas, outbox } = tables;
      const locked = await cas.lock(root.id);
      // A renewal committed meanwhile (docs/api.md#renew-the-root): this root signs no new issuing CA.
      if (locked?.retiredAt) throw CaError.conflict("The tenant's root was renewed meanwhile; retry.");
      const previous = await cas.currentIssuing(tenantId);
      const generation = (await cas.countIssuing(tenantId)) + 1;
      // A root that signed leaves keeps one CRL, at its own path, for those leaves and the issuing
      // CAs it signs; a root made with an issuing CA has root.crl for the latter.
      const rootSignedLeaves = previous === null || root.ownDistributionPoints;
      const subject = {
        commonName: issuingCaSubjectName(root.commonName, generation),
        organization: root.organization,
        country: root.country,
      };
      // Read under the root lock: a policy change commits with its own CA, so none is missed.
      if (policyChange) await policyChange.write(tables);
      const policy = policyChange ? policyChange.policy : await tables.policies.policyOf(tenantId);
      const profile = issuingCaProfile(this.deps.pkiPublicUrl, tenantId, policy, {
        subject,
        notBefore,
        notAfter,
        crlDistributionPointUrl: rootSignedLeaves
          ? caDistributionPointsFor(this.deps.pkiPublicUrl, tenantId, root.id).crlUrl
          : distributionPointsFor(this.deps.pkiPublicUrl, tenantId).rootCrlUrl,
      });
      const certificateDer = await buildCaCertificate(
        {
          ...profile,
          // A renewed root is at its own path; ca.crt stays the first root (docs/api.md#renew-the-root).
          ...(root.previousRootCaId
            ? {
                caIssuersUrl: caDistributionPointsFor(this.deps.pkiPublicUrl, tenantId, root.id).caIssuersUrl,
              }
            : {}),
        },
        { publicKey, privateKey },
        { certificateDer: new Uint8Array(root.certificateDer), privateKey: rootKey },
      );
      const retiredAt = new Date();
      if (previous) await cas.retire(previous.id, retiredAt);
      if (rootSignedLeaves && !root.ownDistributionPoints) await cas.useOwnDistributionPoints(root.id);
      const row = Object.assign(new CertificateAuthorityEntity(), {
        id: caId,
        tenantId,
        role: CaRole.Issuing,
        issuerCaId: root.id,
        ...subject,
        serialNumber: serialToHex(profile.serialNumber),
        certificateDer: Buffer.from(certificateDer),
        notBefore,
        notAfter,
        keyCustody: this.deps.custodyKind,
        keyAlgorithm: key.algorithm,
        publicKeySpki: Buffer.from(key.publicKeySpki),
        wrappedKey: Buffer.from(key.wrapped),
        createdAt: retiredAt,
        createdBy: principal,
        ownDistributionPoints: true,
      });
      await cas.insert(row);
      await outbox.record<IssuingCaAddedPayload>(EventType.IssuingCaAdded, {
        tenantId,
        caId,
        certificateDer: Buffer.from(certificateDer).toString('base64'),
        notBefore: notBefore.toISOString(),
        notAfter: notAfter.toISOString(),
        issuerCaId: root.id,
        rootCertificateDer: root.certificateDer.toString('base64'),
        previousCaId: previous?.id ?? root.id,
        addedBy: principal,
      });
      const pem = derToPem(certificateDer);
      const crosses = await crossCertificatesFrom(cas, root.id);
      return {
        caId,
        certificatePem: pem,
        chainPem: pem + crosses.map((der) => derToPem(new Uint8Array(der))).join(''),
        expiresAt: notAfter.toISOString(),
        keyAlgorithm,
        ...(previous ? { retiredCaId: previous.id } : {}),
      };
    });
    this.deps.onEventsRecorded();
    return result;
  }
}
