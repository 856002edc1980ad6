/**
 * Replies that carry bytes (an export chunk's half megabyte of rows) as bytes: a reply value's own
 * top-level fields that are Bytes travel after a small JSON head instead of inside it, so
 * that neither service turns them into a string on the V8 heap (docs/architecture.md, "Export").
 *
 * A framed message starts with a zero byte, which no JSON text does (RFC 8259, section 2), then
 * the head's length (4 bytes, big-endian), the head (JSON: the message with those fields left
 * out, and each field's name and length in order), then the fields' bytes. Any other message is
 * plain JSON. Reading never throws: a message that is neither is MALFORMED_REPLY.
 */

const FRAME = 0;
const LENGTH_BYTES = 4;

export const MALFORMED_REPLY = 'MALFORMED_REPLY';

/**
 * Bytes, or bytes in parts (a non-empty array of them): the sender may hand its parts over as they
 * are (the database's, say), to be joined once, where they are written to the wire; the receiver
 * reads one Uint8Array.
 */
export type Bytes = Uint8Array | readonly Uint8Array[];

const isParts = (field: unknown): field is readonly Uint8Array[] =>
  Array.isArray(field) && field.length > 0 && field.every((part) => part instanceof Uint8Array);

const byteLength = (bytes: Bytes) =>
  bytes instanceof Uint8Array ? bytes.byteLength : bytes.reduce((n, part) => n + part.byteLength, 0);

/** The byte fields of `value` (a plain object), or undefined when it has none. */
function binaryFields(value: unknown): [string, Bytes][] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let fields: [string, Bytes][] | undefined;
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (field instanceof Uint8Array || isParts(field)) (fields ??= []).push([key, field]);
  }
  return fields;
}

/** Writes `bytes` into `target` at `offset`; the offset after them. */
function put(target: Uint8Array, offset: number, bytes: Bytes): number {
  for (const part of bytes instanceof Uint8Array ? [bytes] : bytes) {
    target.set(part, offset);
    offset += part.byteLength;
  }
  return offset;
}

function withoutFields(value: object, fields: [string, Bytes][]): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...value };
  for (const [key] of fields) delete rest[key];
  return rest;
}

/**
 * `message` as bytes; `valueOf` finds the reply value in it whose fields may be bytes (the
 * message itself, or its `response.value` for a transport packet), `withValue` puts the value
 * without them back.
 */
export function encodeMessage<M>(
  message: M,
  valueOf: (message: M) => unknown = (m) => m,
  withValue: (message: M, value: unknown) => unknown = (_m, value) => value,
): Uint8Array {
  const value = valueOf(message);
  const fields = binaryFields(value);
  if (!fields) return Buffer.from(JSON.stringify(message) ?? 'null', 'utf8');
  const head = Buffer.from(
    JSON.stringify({
      message: withValue(message, withoutFields(value as object, fields)),
      fields: fields.map(([key, bytes]) => [key, byteLength(bytes)]),
    }),
    'utf8',
  );
  const total = 1 + LENGTH_BYTES + head.length + fields.reduce((n, [, b]) => n + byteLength(b), 0);
  const frame = Buffer.allocUnsafe(total);
  frame[0] = FRAME;
  frame.writeUInt32BE(head.length, 1);
  let offset = 1 + LENGTH_BYTES;
  offset += head.copy(frame, offset);
  for (const [, bytes] of fields) offset = put(frame, offset, bytes);
  return frame;
}

/**
 * The message `data` holds, its byte fields as views of `data` (no copy); MALFORMED_REPLY when
 * it is neither JSON nor a whole frame whose fields land on a plain object.
 */
export function decodeMessage(
  data: Uint8Array,
  valueOf: (message: unknown) => unknown = (m) => m,
): { message: unknown } | { error: typeof MALFORMED_REPLY } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  try {
    if (bytes.length === 0 || bytes[0] !== FRAME) return { message: JSON.parse(bytes.toString('utf8')) };
    if (bytes.length < 1 + LENGTH_BYTES) return { error: MALFORMED_REPLY };
    const headEnd = 1 + LENGTH_BYTES + bytes.readUInt32BE(1);
    if (headEnd > bytes.length) return { error: MALFORMED_REPLY };
    const head: unknown = JSON.parse(bytes.toString('utf8', 1 + LENGTH_BYTES, headEnd));
    if (typeof head !== 'object' || head === null || !Array.isArray((head as { fields?: unknown }).fields)) {
      return { error: MALFORMED_REPLY };
    }
    const { message, fields } = head as { message: unknown; fields: unknown[] };
    const value = valueOf(message);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { error: MALFORMED_REPLY };
    let offset = headEnd;
    for (const field of fields) {
      if (!Array.isArray(field) || typeof field[0] !== 'string' || !Number.isSafeInteger(field[1])) {
        return { error: MALFORMED_REPLY };
      }
      const [key, length] = field as [string, number];
      if (length < 0 || offset + length > bytes.length || key === '__proto__')
        return { error: MALFORMED_REPLY };
      (value as Record<string, unknown>)[key] = bytes.subarray(offset, offset + length);
      offset += length;
    }
    return offset === bytes.length ? { message } : { error: MALFORMED_REPLY };
  } catch {
    return { error: MALFORMED_REPLY };
  }
}

/** An RpcReply's value, where its byte fields are (a transport packet holds it as `response`). */
export const replyValue = (reply: unknown): unknown =>
  typeof reply === 'object' && reply !== null && (reply as { ok?: unknown }).ok === true
    ? (reply as { value?: unknown }).value
    : undefined;

/** The same, with `value` in its place. */
export const withReplyValue = (reply: unknown, value: unknown): unknown => ({
  ...(reply as object),
  value,
});

/**
 * A copy of `reply` as the other end of NATS would read it: JSON's copy of everything but the
 * value's byte fields, which are copied as bytes (the in-process transport; no shared objects).
 */
export function copyReply<T>(reply: T): T {
  if (reply === undefined) return reply;
  const value = replyValue(reply);
  const fields = binaryFields(value);
  if (!fields) return JSON.parse(JSON.stringify(reply)) as T;
  const copied = JSON.parse(
    JSON.stringify(withReplyValue(reply, withoutFields(value as object, fields))),
  ) as {
    value: Record<string, unknown>;
  };
  for (const [key, bytes] of fields) {
    const copy = Buffer.allocUnsafe(byteLength(bytes));
    put(copy, 0, bytes);
    copied.value[key] = copy;
  }
  return copied as T;
}

/** Bytes a reply takes on the wire (its JSON, its byte fields as they are). */
export function replyBytes(value: unknown): number {
  const fields = binaryFields(value);
  if (!fields) return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  return (
    Buffer.byteLength(JSON.stringify(withoutFields(value as object, fields)), 'utf8') +
    fields.reduce((n, [, bytes]) => n + byteLength(bytes), 0)
  );
}
