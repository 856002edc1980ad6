import {
  IssueCertificateCommand,
  IssueCertificateRequest,
  IssuedCertificate,
  validateDto,
} from '@ca/contracts';
import { refuseUnsupportedDelivery } from './unsupported-delivery';
import { CertificateMinter } from './certificate.minter';

/** Spec 4.1.2, operation 2: a client certificate with a server-generated key. */
export class IssueCertificateHandler {
  constructor(private readonly minter: CertificateMinter) {}

  async execute(command: IssueCertificateCommand): Promise<IssuedCertificate> {
    const request = await validateDto(IssueCertificateRequest, command.request);
    refuseUnsupportedDelivery(request);
    const { clientId, commonName, organization, organizationalUnit, country } = request;
    return this.minter.mint({
      tenantId: command.tenantId,
      attributes: { clientId, commonName, organization, organizationalUnit, country },
      validityDays: request.validityDays,
    });
  }
}
