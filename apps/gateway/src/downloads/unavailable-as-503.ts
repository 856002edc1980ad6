import { CaError, ErrorCode } from '@ca/contracts';

/** The gateway's database not answering is a 503 Problem Details, not an unexplained 500. */
export async function unavailableAs503<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CaError) throw error;
    const unavailable = new CaError(ErrorCode.ServiceUnavailable, 'The service is temporarily unavailable.');
    unavailable.cause = error; // logged by the problem filter, never shown
    throw unavailable;
  }
}
