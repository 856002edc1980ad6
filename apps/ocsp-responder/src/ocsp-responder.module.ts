import { DynamicModule, Module } from '@nestjs/common';
import { healthController } from '@ca/runtime';
import { CaCertificateController } from './ca-certificates/ca-certificate.controller';
import { CaCertificateStore } from './ca-certificates/ca-certificate.store';

/** The public distribution surface (spec 4.2): CA certificate now; CRL and OCSP as they come. */
@Module({})
export class OcspResponderModule {
  static register(deps: { store: CaCertificateStore; ready: () => Promise<boolean> }): DynamicModule {
    return {
      module: OcspResponderModule,
      controllers: [CaCertificateController, healthController(deps.ready)],
      providers: [{ provide: CaCertificateStore, useValue: deps.store }],
    };
  }
}
