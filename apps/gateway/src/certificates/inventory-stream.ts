import { once } from 'node:events';
import { CertificateSummary, InventoryItem, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import type { Response } from 'express';

/** Rows asked of issuance at a time: one keyset page in memory, whatever the inventory's size. */
export const STREAM_PAGE_SIZE = 1000;

/**
 * Every certificate a filter matches, one keyset page of issuance at a time: the next page is
 * asked only once the previous one is written, so memory stays flat (docs/api.md#export-certificates).
 */
export async function* inventoryPages(
  issuance: RpcClient<IssuanceApi>,
  tenantId: string,
  parameters: Record<string, unknown>,
): AsyncGenerator<InventoryItem[]> {
  let cursor: string | null | undefined;
  do {
    const page = await issuance.send(IssuancePattern.SearchCertificates, {
      tenantId,
      parameters: { ...parameters, limit: String(STREAM_PAGE_SIZE), ...(cursor ? { cursor } : {}) },
    });
    yield page.certificates;
    cursor = page.nextCursor;
  } while (cursor);
}

/**
 * Writes the pages as they come, waiting for the client to take each write (backpressure). The
 * first page is asked for before any header is sent, so a bad parameter is still a 400 Problem;
 * a failure after that can only cut the body short, so the connection is closed mid-stream and the
 * client sees a truncated answer rather than a complete-looking one.
 */
export async function streamInventory(
  res: Response,
  pages: AsyncGenerator<InventoryItem[]>,
  format: {
    contentType: string;
    head: string;
    row(item: InventoryItem, first: boolean): string;
    tail: string;
  },
): Promise<void> {
  const first = await pages.next();
  res.status(200).setHeader('Content-Type', format.contentType);
  let written = 0;
  const write = async (chunk: string) => {
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  };
  try {
    await write(format.head);
    let page = first;
    while (!page.done) {
      if (res.destroyed) return;
      const body = page.value.map((item) => format.row(item, written++ === 0)).join('');
      if (body) await write(body);
      page = await pages.next();
    }
    res.end(format.tail);
  } catch (error) {
    res.destroy(error as Error);
  }
}

const CSV_COLUMNS: (keyof InventoryItem)[] = [
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

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. SANs are space-separated. */
function csvField(value: unknown): string {
  const text = Array.isArray(value) ? value.join(' ') : value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const NDJSON_FORMAT = {
  contentType: 'application/x-ndjson',
  head: '',
  row: (item: InventoryItem) => `${JSON.stringify(item)}\n`,
  tail: '',
};

export const CSV_FORMAT = {
  contentType: 'text/csv; charset=utf-8',
  head: `${CSV_COLUMNS.join(',')}\r\n`,
  row: (item: InventoryItem) => `${CSV_COLUMNS.map((c) => csvField(item[c])).join(',')}\r\n`,
  tail: '',
};

/** `GET /v1/certificates`: the specification's `{"certificates": [...]}` of summaries, written as it is read. */
export const V1_LIST_FORMAT = {
  contentType: 'application/json; charset=utf-8',
  head: '{"certificates":[',
  row: (item: InventoryItem, first: boolean) => `${first ? '' : ','}${JSON.stringify(summaryOf(item))}`,
  tail: ']}',
};

function summaryOf(item: InventoryItem): CertificateSummary {
  return {
    certificateId: item.certificateId,
    clientId: item.clientId,
    commonName: item.commonName,
    serialNumber: item.serialNumber,
    status: item.status,
    issuedAt: item.issuedAt,
    expiresAt: item.expiresAt,
    daysUntilExpiration: item.daysUntilExpiration,
  };
}
