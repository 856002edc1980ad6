import {
  CaError,
  ErrorCode,
  InventoryChunk,
  InventoryExportFormat,
  InventoryItem,
  IssuanceApi,
  IssuancePattern,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { handedOn } from '@ca/runtime';
import type { Response } from 'express';

/**
 * Every certificate a filter matches, as text in `format`, one chunk of issuance at a time
 * (issuance writes the rows; nothing here makes an object per certificate). The next chunk is
 * asked for while the previous one is written, and no further: at most two chunks in memory,
 * whatever the inventory's size (docs/api.md#export-certificates). The rows stay bytes from
 * issuance to the socket (docs/architecture.md, "Export").
 */
export async function* inventoryChunks(
  issuance: RpcClient<IssuanceApi>,
  tenantId: string,
  parameters: Record<string, unknown>,
  format: InventoryExportFormat,
): AsyncGenerator<Uint8Array> {
  const ask = (cursor?: string) => {
    const chunk = issuance
      .send(IssuancePattern.ExportCertificates, {
        tenantId,
        parameters: { ...parameters, ...(cursor ? { cursor } : {}) },
        format,
      })
      .then(checkedChunk);
    // Read only if the stream goes on; a client gone meanwhile leaves it unread, not unhandled.
    chunk.catch(() => undefined);
    return chunk;
  };
  let next = ask();
  for (;;) {
    const chunk = await next;
    if (chunk.nextCursor) next = ask(chunk.nextCursor);
    yield chunk.text;
    if (!chunk.nextCursor) return;
  }
}

/**
 * A chunk as issuance must send it, checked as a request body would be: anything else fails the
 * export (a 500 before the headers, a cut body after) rather than writing what it holds.
 */
function checkedChunk(chunk: unknown): InventoryChunk & { text: Uint8Array } {
  const { text, rows, nextCursor } = (chunk ?? {}) as Partial<Record<keyof InventoryChunk, unknown>>;
  if (
    !(text instanceof Uint8Array) ||
    !Number.isSafeInteger(rows) ||
    (nextCursor !== null && (typeof nextCursor !== 'string' || nextCursor === ''))
  ) {
    throw new CaError(ErrorCode.Internal, 'An unexpected error occurred.');
  }
  return { text, rows: rows as number, nextCursor };
}

/**
 * Writes the chunks as they come, waiting for the client to take each write (backpressure). The
 * first chunk is asked for before any header is sent, so a bad parameter is still a 400 Problem;
 * a failure after that can only cut the body short, so the connection is closed mid-stream and the
 * client sees a truncated answer rather than a complete-looking one.
 */
export async function streamInventory(
  res: Response,
  chunks: AsyncGenerator<Uint8Array>,
  format: { contentType: string; head: string; tail: string; separated?: boolean },
): Promise<void> {
  const first = await chunks.next();
  res.status(200).setHeader('Content-Type', format.contentType);
  let empty = true;
  const write = (chunk: Uint8Array | string) => (res.write(chunk) ? undefined : drained(res));
  try {
    await write(format.head);
    let chunk = first;
    while (!chunk.done) {
      if (res.destroyed) {
        await chunks.return(undefined);
        return;
      }
      let text = chunk.value;
      // `GET /v1/certificates` items come each after a comma: the first one's is dropped.
      if (format.separated && empty && text[0] === COMMA) text = text.subarray(1);
      if (text.byteLength > 0) {
        empty = false;
        await write(text);
        handedOn(text.byteLength);
      }
      chunk = await chunks.next();
    }
    res.end(format.tail);
  } catch (error) {
    res.destroy(error as Error);
  }
}

const COMMA = 0x2c;

/**
 * Until the client has taken what was written, or is gone. Both listeners go when either comes:
 * `Promise.race` of two `once` would leave a `close` and an `error` listener on the response per
 * chunk written, thousands in an export of millions.
 */
function drained(res: Response): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * The columns of the CSV export, in order (issuance writes the rows: certificate-inventory.ts);
 * RFC 4180 quoting, SANs space-separated, revokedAt empty when not revoked.
 */
export const CSV_COLUMNS: (keyof InventoryItem)[] = [
  'certificateId',
  'clientId',
  'commonName',
  'serialNumber',
  'status',
  'issuedAt',
  'expiresAt',
  'daysUntilExpiration',
  'subjectAlternativeNames',
  'usage',
  'caId',
  'source',
  'revokedAt',
];

export const NDJSON_FORMAT = { contentType: 'application/x-ndjson', head: '', tail: '' };

export const CSV_FORMAT = {
  contentType: 'text/csv; charset=utf-8',
  head: `${CSV_COLUMNS.join(',')}\r\n`,
  tail: '',
};

/** `GET /v1/certificates`: the specification's `{"certificates": [...]}` of summaries, written as it is read. */
export const V1_LIST_FORMAT = {
  contentType: 'application/json; charset=utf-8',
  head: '{"certificates":[',
  tail: ']}',
  separated: true,
};
