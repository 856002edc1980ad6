import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CA_PUBLICATION_CONFIRM_MS,
  CrlPublishedCommand,
  PublishCommand,
  PublishResult,
  ResponderPattern,
  WithdrawCommand,
  WithdrawResult,
} from '@ca/contracts';
import { DirectPublication } from './direct-publication';

/** The responder's request/reply subjects, asked by issuance only (docs/architecture.md#read-your-writes). */
@Controller()
export class PublicationController {
  constructor(private readonly publication: DirectPublication) {}

  @MessagePattern(ResponderPattern.Publish)
  publish(@Payload() command: PublishCommand): Promise<PublishResult> {
    return this.publication.publish(command, CA_PUBLICATION_CONFIRM_MS);
  }

  @MessagePattern(ResponderPattern.CrlPublished)
  crlPublished(@Payload() command: CrlPublishedCommand): Promise<{ applied: true }> {
    return this.publication.crlAnnounced(command);
  }

  @MessagePattern(ResponderPattern.Withdraw)
  withdraw(@Payload() command: WithdrawCommand): Promise<WithdrawResult> {
    return this.publication.withdraw(command);
  }
}
