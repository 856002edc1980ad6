import { DynamicModule, Module } from '@nestjs/common';
import { healthController } from '@ca/runtime';

export interface OcspResponderDependencies {
  ready: () => Promise<boolean>;
}

/**
 * The Nest side of the responder's HTTP server: health, and whatever is not the public
 * distribution surface. CA certificates, CRLs and OCSP (docs/ocsp.md) are
 * answered before Nest by `http/public-surface.router.ts`.
 */
@Module({})
export class OcspResponderModule {
  static register(deps: OcspResponderDependencies): DynamicModule {
    return {
      module: OcspResponderModule,
      controllers: [healthController(deps.ready)],
    };
  }
}
