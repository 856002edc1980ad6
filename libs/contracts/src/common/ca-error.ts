import { ErrorCode, isErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/** The wire shape of a CaError: plain JSON, identical over NATS and in-process. */
export interface CaErrorShape {
  code: ErrorCode;
  message: string;
  errors?: FieldError[];
}

/**
 * The one typed error of the system (Boulder's berrors idea). Services throw it; it travels as
 * plain data over the transport; only the gateway turns it into Problem Details (RFC 9457).
 * `message` is safe to show to the caller: never put key material or internal ids in it.
 */
export class CaError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'CaError';
  }

  static validation(errors: FieldError[], message = 'The request is not valid.'): CaError {
    return new CaError(ErrorCode.ValidationFailed, message, errors);
  }

  static notFound(message: string): CaError {
    return new CaError(ErrorCode.NotFound, message);
  }

  static conflict(message: string, code: ErrorCode = ErrorCode.Conflict): CaError {
    return new CaError(code, message);
  }

  toShape(): CaErrorShape {
    return this.errors
      ? { code: this.code, message: this.message, errors: this.errors }
      : { code: this.code, message: this.message };
  }

  /** Rebuilds a CaError from whatever a transport delivered; anything unrecognised is internal. */
  static fromWire(value: unknown): CaError {
    if (value instanceof CaError) return value;
    const shape = value as Partial<CaErrorShape> | undefined;
    if (shape && isErrorCode(shape.code) && typeof shape.message === 'string') {
      return new CaError(shape.code, shape.message, Array.isArray(shape.errors) ? shape.errors : undefined);
    }
    return new CaError(ErrorCode.Internal, 'An unexpected error occurred.');
  }
}
