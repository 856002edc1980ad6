import { CaError, ErrorCode, isUuid } from '@ca/contracts';
import { CertificateEntity } from './certificate.entity';
import { CertificateStore } from './certificate.store';

/**
 * Loads one certificate for a tenant, enforcing isolation here, in the owning service
 * (docs/api.md#tenants-and-isolation): another tenant's certificate is FORBIDDEN, an unknown one NOT_FOUND.
 */
export async function findTenantCertificate(
  certificates: CertificateStore,
  tenantId: string,
  certificateId: string,
  options: { lock?: boolean } = {},
): Promise<CertificateEntity> {
  if (!isUuid(certificateId)) {
    throw CaError.validation([{ field: 'certificateId', message: 'certificateId must be a UUID' }]);
  }
  const certificate = await certificates.byId(certificateId.toLowerCase(), options);
  if (!certificate) throw CaError.notFound('No certificate with this id exists.');
  if (certificate.tenantId !== tenantId) {
    throw new CaError(ErrorCode.Forbidden, 'This certificate belongs to another tenant.');
  }
  return certificate;
}
