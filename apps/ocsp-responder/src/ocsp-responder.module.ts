import { DynamicModule, Module } from '@nestjs/common';
import { healthController } from '@ca/runtime';
import { CaCertificateController } from './ca-certificates/ca-certificate.controller';
import { CaCertificateStore } from './ca-certificates/ca-certificate.store';
import { CrlController } from './crls/crl.controller';
import { CrlStore } from './crls/crl.store';
import { OcspController } from './ocsp/ocsp.controller';
import { OcspResponder } from './ocsp/ocsp.responder';

export interface OcspResponderDependencies {
  caCertificates: CaCertificateStore;
  crls: CrlStore;
  responder: OcspResponder;
  ready: () => Promise<boolean>;
}

/** The public distribution surface (spec 4.2, CONTRACT section 6): CA certificate, CRL and OCSP. */
@Module({})
export class OcspResponderModule {
  static register(deps: OcspResponderDependencies): DynamicModule {
    return {
      module: OcspResponderModule,
      controllers: [CaCertificateController, CrlController, OcspController, healthController(deps.ready)],
      providers: [
        { provide: CaCertificateStore, useValue: deps.caCertificates },
        { provide: CrlStore, useValue: deps.crls },
        { provide: OcspResponder, useValue: deps.responder },
      ],
    };
  }
}
