import { DynamicModule, Module } from '@nestjs/common';
import { DirectPublication } from './direct-publication';
import { PublicationController } from './publication.controller';

/** The request/reply side of the responder: issuance's direct publications. */
@Module({})
export class PublicationModule {
  static register(publication: DirectPublication): DynamicModule {
    return {
      module: PublicationModule,
      controllers: [PublicationController],
      providers: [{ provide: DirectPublication, useValue: publication }],
    };
  }
}
