import { CallHandler, ExecutionContext } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom, of } from 'rxjs';
import { BlobStore } from '../blobs/blob-store';
import { MALFORMED_REPLY, copyReply, decodeMessage, encodeMessage, replyBytes } from './binary-reply';
import { BinaryReplyDeserializer, BinaryReplySerializer } from './binary-reply.nats';
import { RpcClient } from './rpc-client';
import { MAX_INLINE_REPLY_BYTES, RpcReplyInterceptor } from './rpc-reply.interceptor';

const rows = Buffer.from('{"certificateId":"a","commonName":"é"}\n', 'utf8');

describe('replies carrying bytes', () => {
  it('crosses NATS with the bytes as they were and the rest as JSON', () => {
    const packet = {
      id: '7',
      isDisposed: true,
      response: { ok: true, value: { text: rows, rows: 1, nextCursor: null } },
    };
    const { data } = new BinaryReplySerializer().serialize(packet);
    const read = new BinaryReplyDeserializer().deserialize(data) as unknown as typeof packet;
    expect(read.id).toBe('7');
    expect(read.response.value.rows).toBe(1);
    expect(read.response.value.nextCursor).toBeNull();
    expect(Buffer.from(read.response.value.text).equals(rows)).toBe(true);
  });

  it('sends every other reply as the JSON it always was', () => {
    const packet = { id: '8', isDisposed: true, response: { ok: true, value: { page: [1, 2] } } };
    const { data } = new BinaryReplySerializer().serialize(packet);
    expect(JSON.parse(Buffer.from(data).toString('utf8'))).toEqual(packet);
    expect(new BinaryReplyDeserializer().deserialize(data)).toEqual(packet);
  });

  it('turns a message that does not read into the request error, never an exception', () => {
    const framed = Buffer.from(encodeMessage({ text: rows }));
    const cases = [
      Buffer.from('{"id":'),
      framed.subarray(0, framed.length - 1), // a byte short
      Buffer.concat([framed, Buffer.from('x')]), // a byte over
      Buffer.from([0, 0xff, 0xff, 0xff, 0xff]), // a head longer than the message
      Buffer.from([0, 0, 0]),
      Buffer.concat([Buffer.from([0, 0, 0, 0, 2]), Buffer.from('[]')]), // no field list
    ];
    for (const data of cases) {
      expect(decodeMessage(data)).toEqual({ error: MALFORMED_REPLY });
      expect(new BinaryReplyDeserializer().deserialize(data)).toMatchObject({
        err: MALFORMED_REPLY,
        isDisposed: true,
      });
    }
  });

  it('copies in process as NATS would: bytes as new bytes, the rest through JSON', () => {
    const reply = { ok: true, value: { text: rows, rows: 1, at: new Date(0) } };
    const copy = copyReply(reply) as unknown as { value: { text: Buffer; at: unknown } };
    expect(copy.value.text).not.toBe(rows);
    expect(copy.value.text.equals(rows)).toBe(true);
    expect(copy.value.at).toBe('1970-01-01T00:00:00.000Z');
  });

  it('counts bytes as their length toward the inline limit', () => {
    expect(replyBytes({ text: rows })).toBe(rows.length + 2);
    expect(replyBytes({ n: 1 })).toBe(7);
  });
});

describe('bytes sent in parts', () => {
  it('arrive as one Uint8Array, over NATS and in process', () => {
    const parts = [Buffer.from('{"a":1}\n'), Buffer.from('{"b":2}\n')];
    const reply = { ok: true, value: { text: parts, rows: 2 } };
    const { data } = new BinaryReplySerializer().serialize({ id: '9', response: reply, isDisposed: true });
    const read = new BinaryReplyDeserializer().deserialize(data) as unknown as { response: typeof reply };
    expect(Buffer.from(read.response.value.text as unknown as Uint8Array).toString()).toBe(
      '{"a":1}\n{"b":2}\n',
    );
    const copied = copyReply(reply) as unknown as { value: { text: Buffer } };
    expect(copied.value.text.toString()).toBe('{"a":1}\n{"b":2}\n');
  });
});

describe('a reply carrying more bytes than go inline', () => {
  /** Blobs kept in a map, as the object store would keep them. */
  class MapBlobs extends BlobStore {
    readonly blobs = new Map<string, Uint8Array>();
    async put(bytes: Uint8Array) {
      const ref = String(this.blobs.size);
      this.blobs.set(ref, Buffer.from(bytes));
      return ref;
    }
    async get(ref: string) {
      return this.blobs.get(ref);
    }
    async delete(ref: string) {
      this.blobs.delete(ref);
    }
  }

  it('is handed over through the blob store and read back as the same bytes', async () => {
    const blobs = new MapBlobs();
    const big = Buffer.alloc(MAX_INLINE_REPLY_BYTES + 1, 'a');
    const context = { getHandler: () => ({ name: 'handler' }) } as unknown as ExecutionContext;
    const handler: CallHandler = { handle: () => of({ text: [big, Buffer.from('b')], rows: 2 }) };
    const reply = await firstValueFrom(new RpcReplyInterceptor(blobs).intercept(context, handler));
    expect(reply).toEqual({ ok: true, blobRef: expect.any(String) });
    const proxy = { send: () => of(reply) } as unknown as ClientProxy;
    const read = await new RpcClient<{ 'x.y': [object, { text: Uint8Array; rows: number }] }>(
      proxy,
      1_000,
      blobs,
    ).send('x.y', {});
    expect(read.rows).toBe(2);
    expect(Buffer.from(read.text).equals(Buffer.concat([big, Buffer.from('b')]))).toBe(true);
  });
});
