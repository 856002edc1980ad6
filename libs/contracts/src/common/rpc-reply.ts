import { CaErrorShape } from './ca-error';

/**
 * A request/reply answer: a value, a typed error, or (for a value too large for one message) a
 * BlobStore reference to the value's JSON; never a thrown transport error.
 */
export type RpcReply<T> =
  { ok: true; value: T } | { ok: true; blobRef: string } | { ok: false; error: CaErrorShape };
