import { problemLine } from './problem-line';

describe('problemLine', () => {
  it('puts status, code, detail, failing fields, the next step and the request id on one line', () => {
    const line = problemLine(400, {
      status: 400,
      code: 'VALIDATION_FAILED',
      detail: 'The request is invalid.',
      recovery: 'Fix the fields named in errors and send it again.',
      requestId: 'req-1',
      errors: [
        { field: 'country', message: 'must be 2 letters' },
        { field: 'validityDays', message: 'must be at most 3650' },
      ],
    });
    expect(line).toBe(
      'error: 400 VALIDATION_FAILED: The request is invalid (country: must be 2 letters; validityDays: must be at most 3650). Fix the fields named in errors and send it again. [request req-1]',
    );
  });

  it('keeps multi-line details on one line and works with a reduced body', () => {
    expect(problemLine(409, { title: 'Conflict', detail: 'The CA\nexists' })).toBe(
      'error: 409: The CA exists.',
    );
  });
});
