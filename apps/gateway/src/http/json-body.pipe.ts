import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { CaError } from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { textFieldErrors } from '../text/text-fields';

/**
 * Validates @Body() parameters: every string is acceptable text (text/text-rules.ts), then the DTO
 * class (its class-validator rules): 400 VALIDATION_FAILED with one `errors[]` entry per failing field;
 * unknown fields are refused.
 */
@Injectable()
export class JsonBodyPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return value;
    const textErrors = textFieldErrors(value);
    if (textErrors.length > 0) throw CaError.validation(textErrors);
    const type = metadata.metatype;
    if (!type || type === Object) return value;
    return validateDto(type as new () => object, value);
  }
}
