import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { CaError } from '@ca/contracts';
import { textFieldErrors } from '../text/text-fields';

/**
 * Path and query parameters (@Param, @Query) are acceptable text (text/text-rules.ts) before any
 * other pipe or handler sees them: 400 VALIDATION_FAILED naming the parameter. Express has already
 * percent-decoded them, so `%00` arrives here as NUL.
 */
@Injectable()
export class TextParamPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'param' && metadata.type !== 'query') return value;
    const errors = textFieldErrors(value, metadata.data ?? metadata.type);
    if (errors.length > 0) throw CaError.validation(errors);
    return value;
  }
}
