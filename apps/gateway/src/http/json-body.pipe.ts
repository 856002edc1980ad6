import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { validateDto } from '@ca/contracts';

/**
 * Validates @Body() parameters against their DTO class (spec 4.1 constraints): 400
 * VALIDATION_FAILED with one `errors[]` entry per failing field; unknown fields are refused.
 */
@Injectable()
export class JsonBodyPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const type = metadata.metatype;
    if (metadata.type !== 'body' || !type || type === Object) return value;
    return validateDto(type as new () => object, value);
  }
}
