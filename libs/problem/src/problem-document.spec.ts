import { CaError, ErrorCode } from '@ca/contracts';
import { PROBLEM_CATALOG } from './problem-catalog';
import { toProblemDocument } from './problem-document';

const context = { catalogUrl: 'https://errors.example', requestId: 'req-1', instance: '/v1/ca/initialize' };

describe('toProblemDocument', () => {
  it('fills every required field of docs/api.md#errors and lists field errors on 400', () => {
    const doc = toProblemDocument(
      CaError.validation([{ field: 'country', message: 'must be two letters' }]),
      context,
    );
    expect(doc).toEqual({
      type: 'https://errors.example/common/validation-failed',
      title: 'Validation failed',
      status: 400,
      detail: 'The request is not valid.',
      instance: '/v1/ca/initialize',
      code: 'VALIDATION_FAILED',
      recovery: expect.any(String),
      requestId: 'req-1',
      errors: [{ field: 'country', message: 'must be two letters' }],
    });
  });

  it('uses the spec slugs for conflicts and the plan limit', () => {
    expect(toProblemDocument(CaError.conflict('exists'), context).type).toBe(
      'https://errors.example/ca-manager/conflict',
    );
    const limit = toProblemDocument(CaError.conflict('full', ErrorCode.CertificateLimitReached), context);
    expect(limit).toMatchObject({ status: 409, code: 'CERTIFICATE_LIMIT_REACHED' });
    expect(limit.type).toMatch(/\/ca-manager\/certificate-limit-reached$/);
    expect(limit).not.toHaveProperty('errors');
  });

  it('answers a failed pre-signing lint with 400 and the lints in errors (docs/lints.md)', () => {
    const lint = new CaError(ErrorCode.CertificateLintFailed, 'nothing was signed', [
      { field: 'e_server_cn_not_in_san', message: 'the CN is not a SAN' },
    ]);
    expect(toProblemDocument(lint, context)).toMatchObject({
      type: 'https://errors.example/ca-manager/certificate-lint-failed',
      status: 400,
      code: 'CERTIFICATE_LINT_FAILED',
      errors: [{ field: 'e_server_cn_not_in_san', message: 'the CN is not a SAN' }],
    });
  });

  it('has a status, title and recovery for every error code', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(PROBLEM_CATALOG[code]).toMatchObject({
        status: expect.any(Number),
        title: expect.any(String),
        recovery: expect.any(String),
      });
    }
  });
});
