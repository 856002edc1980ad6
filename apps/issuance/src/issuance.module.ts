import { DynamicModule, Module } from '@nestjs/common';
import { KeyCustody } from '@ca/custody';
import { OutboxRelay } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { CertificateAuthorityController } from './certificate-authority/certificate-authority.controller';
import { InitializeCaHandler } from './certificate-authority/initialize-ca.handler';

export interface IssuanceDependencies {
  dataSource: DataSource;
  custody: KeyCustody;
  custodyKind: string;
  relay: OutboxRelay;
}

/** The issuance context: CA initialization now; issue, renew, revoke, list as they come. */
@Module({})
export class IssuanceModule {
  static register(deps: IssuanceDependencies): DynamicModule {
    return {
      module: IssuanceModule,
      controllers: [CertificateAuthorityController],
      providers: [
        { provide: DataSource, useValue: deps.dataSource },
        { provide: KeyCustody, useValue: deps.custody },
        {
          provide: InitializeCaHandler,
          useFactory: () =>
            new InitializeCaHandler(deps.dataSource, deps.custody, deps.custodyKind, () =>
              deps.relay.nudge(),
            ),
        },
      ],
    };
  }
}
