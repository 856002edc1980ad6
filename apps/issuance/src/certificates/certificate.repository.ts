import { CaError, ErrorCode } from '@ca/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { CertificateEntity } from './certificate.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Loads one certificate for a tenant, enforcing isolation here, in the owning service
 * (docs/api.md#tenants-and-isolation): another tenant's certificate is FORBIDDEN, an unknown one NOT_FOUND.
 */
export async function findTenantCertificate(
  source: DataSource | EntityManager,
  tenantId: string,
  certificateId: string,
  options: { lock?: boolean } = {},
): Promise<CertificateEntity> {
  if (!UUID.test(certificateId)) {
    throw CaError.validation([{ field: 'certificateId', message: 'certificateId must be a UUID' }]);
  }
  const manager = source instanceof DataSource ? source.manager : source;
  const certificate = await manager.findOne(CertificateEntity, {
    where: { id: certificateId.toLowerCase() },
    ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!certificate) throw CaError.notFound('No certificate with this id exists.');
  if (certificate.tenantId !== tenantId) {
    throw new CaError(ErrorCode.Forbidden, 'This certificate belongs to another tenant.');
  }
  return certificate;
}
