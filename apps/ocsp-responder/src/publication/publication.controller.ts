import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CA_PUBLICATION_CONFIRM_MS, PublishCommand, PublishResult, ResponderPattern } from '@ca/contracts';
import { DirectPublication } from './direct-publication';

/** The responder's one request/reply subject, asked by issuance only (docs/architecture.md#read-your-writes). */
@Controller()
export class PublicationController {
  constructor(private readonly publication: DirectPublication) {}

  @MessagePattern(ResponderPattern.Publish)
  publish(@Payload() command: PublishCommand): Promise<PublishResult> {
    return this.publication.publish(command, CA_PUBLICATION_CONFIRM_MS);
  }
}
