import { Injectable, PipeTransform } from '@nestjs/common';
import { CaError } from '@ca/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed certificate id is a 400 VALIDATION_FAILED naming the parameter (not a 404). */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  constructor(private readonly field = 'certificateId') {}

  transform(value: string): string {
    if (!UUID.test(value))
      throw CaError.validation([{ field: this.field, message: `${this.field} must be a UUID` }]);
    return value.toLowerCase();
  }
}
