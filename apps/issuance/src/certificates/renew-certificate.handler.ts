import {
  CaError,
  IssuedCertificate,
  RenewCertificateCommand,
  RenewCertificateRequest,
  validateDto,
} from '@ca/contracts';
import { CertificateMinter } from './certificate.minter';
import { findTenantCertificate } from './certificate.repository';
import { refuseUnsupportedDelivery } from './unsupported-delivery';
import { DataSource } from 'typeorm';

/**
 * Spec 4.1.5, operation 5: a new certificate (new id, serial and key) with the same attributes;
 * the original stays as it is until it expires. Revoked originals are refused (CONTRACT section 5);
 * expired ones may be renewed.
 */
export class RenewCertificateHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly minter: CertificateMinter,
  ) {}

  async execute(command: RenewCertificateCommand): Promise<IssuedCertificate> {
    const original = await findTenantCertificate(this.dataSource, command.tenantId, command.certificateId);
    const request = await validateDto(RenewCertificateRequest, command.request);
    refuseUnsupportedDelivery(request);
    if (original.revokedAt)
      throw CaError.conflict('A revoked certificate cannot be renewed; issue a new one instead.');
    const { clientId, commonName, organization, organizationalUnit, country } = original;
    return this.minter.mint({
      tenantId: command.tenantId,
      attributes: { clientId, commonName, organization, organizationalUnit, country },
      validityDays: request.validityDays,
      renewedFrom: original.id,
    });
  }
}
