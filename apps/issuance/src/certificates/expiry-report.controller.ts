import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ExpiryReport, ExpiryReportQuery, IssuancePattern } from '@ca/contracts';
import { ExpiryReporter } from './expiry-report';

/** The operators' expiry report (`npm run ops -- expiring`); the admin API never sends it. */
@Controller()
export class ExpiryReportController {
  constructor(private readonly reporter: ExpiryReporter) {}

  @MessagePattern(IssuancePattern.ExpiryReport)
  report(@Payload() query: ExpiryReportQuery): Promise<ExpiryReport> {
    return this.reporter.report(query);
  }
}
