import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { IssuanceApi } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { NDJSON_FORMAT, V1_LIST_FORMAT, inventoryChunks, streamInventory } from './inventory-stream';

/** A response whose client takes each write a moment later (every write above its buffer). */
class SlowClientResponse extends EventEmitter {
  destroyed = false;
  ended = false;
  body = '';
  status() {
    return this;
  }
  setHeader() {
    return this;
  }
  write(text: string | Uint8Array): boolean {
    this.body += Buffer.from(text).toString('utf8');
    setImmediate(() => this.emit('drain'));
    return false;
  }
  end(text: string) {
    this.body += text;
    this.ended = true;
  }
  destroy() {
    this.destroyed = true;
  }
}

async function* lines(count: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) yield Buffer.from(`{"n":${i}}\n`);
}

/** Issuance as the gateway's RPC client sees it: these replies, one per chunk asked for. */
function issuanceAnswering(...replies: unknown[]): RpcClient<IssuanceApi> {
  return { send: async () => replies.shift() } as unknown as RpcClient<IssuanceApi>;
}

describe('streamInventory', () => {
  it('writes every chunk to a client slower than the stream, leaving no listener behind per chunk', async () => {
    const res = new SlowClientResponse();
    const warnings: Error[] = [];
    const warn = (warning: Error) => warnings.push(warning);
    process.on('warning', warn);
    try {
      await streamInventory(res as unknown as Response, lines(200), NDJSON_FORMAT);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', warn);
    }
    expect(res.body.split('\n').filter(Boolean)).toHaveLength(200);
    expect(res.listenerCount('close') + res.listenerCount('error') + res.listenerCount('drain')).toBe(0);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('stops when the client is gone while it waits for it', async () => {
    const res = new SlowClientResponse();
    res.write = (text: string | Uint8Array) => {
      res.body += Buffer.from(text).toString('utf8');
      setImmediate(() => {
        res.destroyed = true;
        res.emit('close');
      });
      return false;
    };
    await streamInventory(res as unknown as Response, lines(100), NDJSON_FORMAT);
    expect(res.body.split('\n').filter(Boolean).length).toBeLessThan(100);
  });

  it('writes the rows issuance sent as bytes, dropping the first separator of a v1 list', async () => {
    const res = new SlowClientResponse();
    const chunks = inventoryChunks(
      issuanceAnswering(
        { text: Buffer.from(',{"a":1},{"é":2}'), rows: 2, nextCursor: 'c1' },
        { text: Buffer.from(',{"a":3}'), rows: 1, nextCursor: null },
      ),
      '00000000-0000-4000-8000-000000000000',
      {},
      'v1',
    );
    await streamInventory(res as unknown as Response, chunks, V1_LIST_FORMAT);
    expect(JSON.parse(res.body)).toEqual({ certificates: [{ a: 1 }, { é: 2 }, { a: 3 }] });
  });

  it('refuses a malformed first chunk before any header, and cuts the body at a later one', async () => {
    const tenant = '00000000-0000-4000-8000-000000000000';
    const early = new SlowClientResponse();
    const malformed = { text: 'rows as a string', rows: 1, nextCursor: null };
    await expect(
      streamInventory(
        early as unknown as Response,
        inventoryChunks(issuanceAnswering(malformed), tenant, {}, 'ndjson'),
        NDJSON_FORMAT,
      ),
    ).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(early.body).toBe('');

    const late = new SlowClientResponse();
    await streamInventory(
      late as unknown as Response,
      inventoryChunks(
        issuanceAnswering({ text: Buffer.from('{"n":1}\n'), rows: 1, nextCursor: 'c1' }, null),
        tenant,
        {},
        'ndjson',
      ),
      NDJSON_FORMAT,
    );
    expect(late.body).toBe('{"n":1}\n');
    expect(late.destroyed).toBe(true);
    expect(late.ended).toBe(false);
  });
});
