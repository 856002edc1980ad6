import { CaError, FieldError, ResponseFormat } from '@ca/contracts';

/**
 * File downloads and PKCS#12 bundles are not built yet: refuse them clearly rather than
 * silently answer in another format than the caller asked for.
 */
export function refuseUnsupportedDelivery(request: {
  responseFormat?: string;
  passwordProtected?: boolean;
}): void {
  const errors: FieldError[] = [];
  if (request.responseFormat === ResponseFormat.File) {
    errors.push({ field: 'responseFormat', message: 'File delivery is not available yet; use Text' });
  }
  if (request.passwordProtected === true) {
    errors.push({
      field: 'passwordProtected',
      message: 'PKCS#12 bundles are not available yet; omit or set false',
    });
  }
  if (errors.length > 0)
    throw CaError.validation(errors, 'The requested delivery format is not available yet.');
}
