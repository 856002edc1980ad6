import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AcmeApi, AcmePattern, CaError, parseAcmeHttpRequest } from '@ca/contracts';
import { EabKeys } from './eab/eab-keys';
import { AcmeServer } from './protocol/acme-server';
import { AcmeProfiles } from './profiles/acme-profiles';

type Request<P extends keyof AcmeApi> = AcmeApi[P][0];
type Reply<P extends keyof AcmeApi> = Promise<AcmeApi[P][1]>;

const text = (value: unknown, field: string, max = 256): string => {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw CaError.validation([{ field, message: `must be a string of 1 to ${max} characters` }]);
  }
  return value;
};

/** The request/reply surface of the acme context; every message schema-checked. */
@Controller()
export class AcmeController {
  constructor(
    private readonly server: AcmeServer,
    private readonly eabKeys: EabKeys,
    private readonly profiles: AcmeProfiles,
  ) {}

  @MessagePattern(AcmePattern.Http)
  http(@Payload() request: Request<typeof AcmePattern.Http>): Reply<typeof AcmePattern.Http> {
    const parsed = parseAcmeHttpRequest(request);
    if (!parsed) throw CaError.validation([{ field: 'request', message: 'not an ACME HTTP request' }]);
    return this.server.handle(parsed);
  }

  @MessagePattern(AcmePattern.CreateEabKey)
  createEabKey(
    @Payload() command: Request<typeof AcmePattern.CreateEabKey>,
  ): Reply<typeof AcmePattern.CreateEabKey> {
    return this.eabKeys.create(
      text(command?.tenantId, 'tenantId'),
      text(command?.recipientPublicKey, 'recipientPublicKey', 1024),
    );
  }

  @MessagePattern(AcmePattern.ListEabKeys)
  async listEabKeys(
    @Payload() query: Request<typeof AcmePattern.ListEabKeys>,
  ): Reply<typeof AcmePattern.ListEabKeys> {
    return { keys: await this.eabKeys.list(text(query?.tenantId, 'tenantId')) };
  }

  @MessagePattern(AcmePattern.DisableEabKey)
  disableEabKey(
    @Payload() command: Request<typeof AcmePattern.DisableEabKey>,
  ): Reply<typeof AcmePattern.DisableEabKey> {
    return this.eabKeys.disable(text(command?.tenantId, 'tenantId'), text(command?.keyId, 'keyId', 64));
  }

  @MessagePattern(AcmePattern.PutProfile)
  putProfile(
    @Payload() command: Request<typeof AcmePattern.PutProfile>,
  ): Reply<typeof AcmePattern.PutProfile> {
    return this.profiles.put(text(command?.tenantId, 'tenantId'), command?.profile);
  }

  @MessagePattern(AcmePattern.ListProfiles)
  async listProfiles(
    @Payload() query: Request<typeof AcmePattern.ListProfiles>,
  ): Reply<typeof AcmePattern.ListProfiles> {
    return { profiles: await this.profiles.list(text(query?.tenantId, 'tenantId')) };
  }

  @MessagePattern(AcmePattern.DeleteProfile)
  deleteProfile(
    @Payload() command: Request<typeof AcmePattern.DeleteProfile>,
  ): Reply<typeof AcmePattern.DeleteProfile> {
    return this.profiles.delete(text(command?.tenantId, 'tenantId'), text(command?.name, 'name', 64));
  }
}
