import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';

/**
 * Test fixtures only (a store, since it writes a table): a CA row for suites that store
 * certificates straight into the schema, whose foreign key needs one. Nothing signs with it
 * (placeholder DER, key and SPKI). Returns its id.
 */
export async function insertPlaceholderCa(
  dataSource: DataSource,
  { tenantId = randomUUID(), validForMs = 86_400_000 }: { tenantId?: string; validForMs?: number } = {},
): Promise<string> {
  const id = randomUUID();
  await dataSource.getRepository(CertificateAuthorityEntity).insert({
    id,
    tenantId,
    commonName: 'Root',
    organization: 'Acme',
    country: 'US',
    serialNumber: '01',
    certificateDer: Buffer.of(0x30, 0x00),
    notBefore: new Date(),
    notAfter: new Date(Date.now() + validForMs),
    keyCustody: 'local',
    keyAlgorithm: 'ECDSA-P256',
    publicKeySpki: Buffer.of(0x30, 0x00),
    wrappedKey: Buffer.of(0),
    createdAt: new Date(),
  });
  return id;
}
