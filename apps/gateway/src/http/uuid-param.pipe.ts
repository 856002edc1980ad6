import { Injectable, PipeTransform } from '@nestjs/common';
import { CaError, Uuid, parseUuid } from '@ca/contracts';

/** A malformed certificate id is a 400 VALIDATION_FAILED naming the parameter (not a 404). */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, Uuid> {
  constructor(private readonly field = 'certificateId') {}

  transform(value: string): Uuid {
    const id = parseUuid(value);
    if (!id) throw CaError.validation([{ field: this.field, message: `${this.field} must be a UUID` }]);
    return id;
  }
}
