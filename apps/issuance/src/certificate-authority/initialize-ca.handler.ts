import { randomUUID } from 'node:crypto';
import {
  CaError,
  assertCommandFields,
  validateDto,
  CaInitializedPayload,
  EventType,
  InitializeCaCommand,
  InitializeCaRequest,
  InitializeCaResult,
} from '@ca/contracts';
import { KeyCustody } from '@ca/custody';
import { isUniqueViolation } from '@ca/persistence';
import {
  buildCaCertificate,
  derToPem,
  randomSerialNumber,
  serialToHex,
  useProviderForKey,
  validityOfYears,
} from '@ca/pki';
import { recordEvent } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

import { CertificateAuthorityEntity } from './certificate-authority.entity';

const ALREADY_EXISTS = 'This tenant already has a certificate authority; a tenant has at most one.';

/**
 * docs/api.md#initialize-the-ca: creates the tenant's self-signed root. The key is generated inside custody and
 * stored only wrapped; the CA row and the `ca.initialized` event commit together. A second
 * initialization (even a concurrent one) gets 409 and changes nothing.
 */
export class InitializeCaHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly custody: KeyCustody,
    private readonly custodyKind: string,
    private readonly onEventsRecorded: () => void,
  ) {}

  async execute(command: InitializeCaCommand): Promise<InitializeCaResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const request = await validateDto(InitializeCaRequest, command.request);
    const authorities = this.dataSource.getRepository(CertificateAuthorityEntity);
    if (await authorities.exists({ where: { tenantId: command.tenantId } }))
      throw CaError.conflict(ALREADY_EXISTS);

    const caId = randomUUID();
    const { key, publicKey } = await this.custody.generateSigningKey({
      tenantId: command.tenantId,
      keyId: caId,
    });
    const { privateKey, crypto } = await this.custody.openSigningKey(
      { tenantId: command.tenantId, keyId: caId },
      key,
    );
    useProviderForKey(privateKey, crypto);
    // Backdated a minute like every certificate, exactly validityYears long (docs/certificate-profile.md).
    const { notBefore, notAfter } = validityOfYears(request.validityYears, new Date());
    const serialNumber = randomSerialNumber();
    const certificateDer = await buildCaCertificate(
      {
        subject: {
          commonName: request.commonName,
          organization: request.organization,
          country: request.country,
        },
        notBefore,
        notAfter,
        serialNumber,
      },
      { publicKey, privateKey },
    );

    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.insert(CertificateAuthorityEntity, {
          id: caId,
          tenantId: command.tenantId,
          commonName: request.commonName,
          organization: request.organization,
          country: request.country,
          serialNumber: serialToHex(serialNumber),
          certificateDer: Buffer.from(certificateDer),
          notBefore,
          notAfter,
          keyCustody: this.custodyKind,
          keyAlgorithm: key.algorithm,
          publicKeySpki: Buffer.from(key.publicKeySpki),
          wrappedKey: Buffer.from(key.wrapped),
          createdAt: new Date(),
          createdBy: command.principal,
        });
        await recordEvent<CaInitializedPayload>(manager, ISSUANCE_SCHEMA, EventType.CaInitialized, {
          tenantId: command.tenantId,
          caId,
          certificateDer: Buffer.from(certificateDer).toString('base64'),
          notBefore: notBefore.toISOString(),
          notAfter: notAfter.toISOString(),
          initializedBy: command.principal,
        });
      });
    } catch (error) {
      // Not stored, so never to be used: a token key would otherwise stay in the token for good.
      await this.custody
        .destroySigningKey({ tenantId: command.tenantId, keyId: caId }, key)
        .catch(() => undefined);
      if (isUniqueViolation(error)) throw CaError.conflict(ALREADY_EXISTS);
      throw error;
    }
    this.onEventsRecorded();
    return { caId, certificatePem: derToPem(certificateDer), expiresAt: notAfter.toISOString() };
  }
}
