import { DynamicModule, Module } from '@nestjs/common';
import { AcmeController } from './acme.controller';
import { EabKeys } from './eab/eab-keys';
import { AcmeServer } from './protocol/acme-server';
import { AcmeProfiles } from './profiles/acme-profiles';

@Module({})
export class AcmeModule {
  static register(deps: { server: AcmeServer; eabKeys: EabKeys; profiles: AcmeProfiles }): DynamicModule {
    return {
      module: AcmeModule,
      controllers: [AcmeController],
      providers: [
        { provide: AcmeServer, useValue: deps.server },
        { provide: EabKeys, useValue: deps.eabKeys },
        { provide: AcmeProfiles, useValue: deps.profiles },
      ],
    };
  }
}
