import { randomUUID } from 'node:crypto';
import { CaError, CertificateIssuedPayload, EventType, IssuedCertificate } from '@ca/contracts';
import { newEvent } from '@ca/messaging';
import { isUniqueViolation } from '@ca/persistence';
import { buildLeafCertificate, derToPem, randomSerialNumber, serialToHex, validityOfDays } from '@ca/pki';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';
import { CertificateGroupCommit } from './certificate-group-commit';
import { leafDistributionPointsFor } from './distribution-points';
import { CertificateProfile, customExtensionsOf, extendedKeyUsagesOf } from './certificate-profile';
import { CustomExtensionArcs } from './custom-extension-arcs';
import { assertPolicyAllows } from '../policy/issuance-policies';
import { SubjectKey, assertCsrKeyFitsCa } from './subject-public-key';
import { assertKeyNotBlocked, subjectKeySha256 } from './blocked-keys';
import { MintFactsStore } from './mint-facts.store';
import { ONE_ACME_REPLACEMENT_INDEX } from '../migrations/1767950000000-one-acme-replacement-per-certificate';

export interface MintRequest {
  tenantId: string;
  profile: CertificateProfile;
  validityDays: number;
  renewedFrom?: string;
  /** The key to certify, from the command (importSubjectPublicKey); its private half never comes here. */
  subjectKey: SubjectKey;
  /** The principal whose command this is, kept on the row and in the event. */
  principal: string;
  /** An ACME order's certificate (only the acme service's subject says so); else by its key. */
  viaAcme?: boolean;
  /** The subject's O and C are those of the CA that signs it (the ACME profile), not the profile's. */
  subjectOfSigningCa?: boolean;
}

/** A random 128-bit serial colliding is astronomically unlikely; a few retries make it impossible to store twice. */
const SERIAL_ATTEMPTS = 3;

/**
 * Makes one certificate (docs/api.md#certificate-profile profile, plus the v2 usage, SANs, must-staple and
 * custom extensions of docs/api.md#issue-a-certificate-v2) for issue and renew alike: the
 * caller's public key signed by the tenant CA, stored with its `certificate.issued` event in one
 * transaction (shared with the certificates minted meanwhile: CertificateGroupCommit), which also
 * enforces the tenant's status and plan limit as issuance's own tenants projection records them.
 * No private key is made, seen or returned here: the gateway generates the pair and keeps it.
 */
export class CertificateMinter {
  constructor(
    private readonly signer: CertificateAuthoritySigner,
    private readonly pkiPublicUrl: string,
    private readonly groupCommit: CertificateGroupCommit,
    private readonly customExtensionArcs: CustomExtensionArcs,
    /** The tenant's policy, its blocked keys and its signing CA, read together for each certificate. */
    private readonly facts: MintFactsStore,
  ) {}

  async mint(request: MintRequest): Promise<IssuedCertificate> {
    const arrived = this.groupCommit.expect();
    try {
      return await this.mintAnnounced(request, arrived);
    } finally {
      arrived(); // refused before it was stored: the batch need not wait for it
    }
  }

  private async mintAnnounced(request: MintRequest, arrived: () => void): Promise<IssuedCertificate> {
    const facts = await this.facts.factsFor(request.tenantId, await subjectKeySha256(request.subjectKey));
    // Before the CA key is touched: a name outside the tenant's policy, or a key blocked, is never signed.
    assertPolicyAllows(facts.policy, request.profile);
    assertKeyNotBlocked(facts.keyBlocked);
    const {
      authority,
      privateKey: caKey,
      chain,
      validUntil,
    } = await this.signer.forLeavesOf(request.tenantId, facts.signingCa);
    assertCsrKeyFitsCa(request.subjectKey, authority.keyAlgorithm);
    // Backdated a minute for relying parties whose clock runs behind, exactly validityDays long.
    const { notBefore, notAfter } = validityOfDays(request.validityDays, new Date(), authority.notBefore);
    if (notAfter > validUntil) {
      // A certificate that would outlive its CA, or a certificate of the CA's chain up to a
      // corporate root (RFC 5280 6.1.3 (a)(2)), is refused.
      const what = validUntil < authority.notAfter ? "its CA's chain" : 'its CA';
      throw CaError.validation([
        {
          field: 'validityDays',
          message: `the certificate would expire after ${what} (${validUntil.toISOString()}); use fewer days`,
        },
      ]);
    }
    // Tenant status and plan limit are checked once, locked, inside the transaction below: an
    // unlocked read up front as well would cost every issuance a query to spare a refused one a signature.
    const urls = leafDistributionPointsFor(this.pkiPublicUrl, authority);
    const profile = request.subjectOfSigningCa
      ? { ...request.profile, organization: authority.organization, country: authority.country }
      : request.profile;
    const customExtensions = customExtensionsOf(
      profile,
      await this.customExtensionArcs.arcsFor(
        request.tenantId,
        profile.customExtensions.map(({ key }) => key),
      ),
    );

    for (let attempt = 1; ; attempt++) {
      const serialNumber = randomSerialNumber();
      const der = await buildLeafCertificate(
        {
          subject: {
            country: profile.country,
            organization: profile.organization,
            organizationalUnit: profile.organizationalUnit,
            // '' for a certificate named by its SANs alone (RFC 5280 ub-common-name, 64).
            commonName: profile.commonName || undefined,
          },
          notBefore,
          notAfter,
          serialNumber,
          extendedKeyUsages: extendedKeyUsagesOf(profile.usage),
          dnsNames: profile.dnsNames,
          mustStaple: profile.mustStaple,
          customExtensions,
          crlDistributionPointUrl: urls.crlUrl,
          ocspUrl: urls.ocspUrl,
          // RFC 5280 4.2.2.1: the certificate of the CA that signed this one.
          // RFC 5246 7.4.7.1: a TLS server's RSA key may also encipher (RSA key transport).
          keyEncipherment:
            request.subjectKey.publicKey.algorithm.name === 'RSASSA-PKCS1-v1_5' && profile.usage !== 'Client',
          caIssuersUrl: urls.caIssuersUrl,
        },
        request.subjectKey.publicKey,
        { certificateDer: authority.certificateDer, privateKey: caKey },
      );
      const certificateId = randomUUID();
      const serialHex = serialToHex(serialNumber);
      try {
        await this.groupCommit.store(
          {
            certificate: {
              id: certificateId,
              tenantId: request.tenantId,
              caId: authority.id,
              serialNumber: serialHex,
              ...profile,
              certificateDer: Buffer.from(der),
              notBefore,
              notAfter,
              issuedAt: new Date(),
              renewedFrom: request.renewedFrom ?? null,
              issuedBy: request.principal,
              keyFromCsr: request.subjectKey.fromCsr,
              source: request.viaAcme ? 'acme' : request.subjectKey.fromCsr ? 'csr' : 'api',
            },
            // Made here, in the request's context, whose trace and request id it carries.
            event: newEvent<CertificateIssuedPayload>(EventType.CertificateIssued, {
              tenantId: request.tenantId,
              certificateId,
              caId: authority.id,
              serialNumber: serialHex,
              notBefore: notBefore.toISOString(),
              notAfter: notAfter.toISOString(),
              ...(request.renewedFrom ? { renewedFrom: request.renewedFrom } : {}),
              issuedBy: request.principal,
              // A subject without CN ('', acme's long names) leaves the field out: it is never empty.
              ...(profile.commonName ? { commonName: profile.commonName } : {}),
              ...(profile.clientId ? { clientId: profile.clientId } : {}),
              subjectAlternativeNames: profile.dnsNames,
              // Its status sequence starts at 1 (issuance.certificates.status_sequence's default).
              sequence: 1,
            }),
          },
          arrived,
        );
      } catch (error) {
        // Another order replacing the same certificate was stored first (RFC 9773 5).
        if (request.renewedFrom && request.viaAcme && violates(error, ONE_ACME_REPLACEMENT_INDEX))
          throw CaError.conflict('This certificate has been replaced already.');
        if (isUniqueViolation(error) && attempt < SERIAL_ATTEMPTS) continue;
        throw error;
      }
      return {
        certificateId,
        serialNumber: serialHex,
        expiresAt: notAfter.toISOString(),
        certificatePem: derToPem(der),
        caCertificatePem: derToPem(new Uint8Array(authority.certificateDer)),
        chainPem: chain.map((der) => derToPem(new Uint8Array(der))).join(''),
      };
    }
  }
}

/** A unique violation of this index (node-postgres and PGlite both name it in `constraint`). */
function violates(error: unknown, index: string): boolean {
  if (!isUniqueViolation(error)) return false;
  const e = error as { constraint?: string; driverError?: { constraint?: string } };
  return (e.constraint ?? e.driverError?.constraint) === index;
}
