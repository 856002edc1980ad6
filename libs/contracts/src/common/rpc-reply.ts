import { CaErrorShape } from './ca-error';

/** A request/reply answer: either a value or a typed error, never a thrown transport error. */
export type RpcReply<T> = { ok: true; value: T } | { ok: false; error: CaErrorShape };
