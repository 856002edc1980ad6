import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { NDJSON_FORMAT, streamInventory } from './inventory-stream';

/** A response whose client takes each write a moment later (every write above its buffer). */
class SlowClientResponse extends EventEmitter {
  destroyed = false;
  body = '';
  status() {
    return this;
  }
  setHeader() {
    return this;
  }
  write(text: string): boolean {
    this.body += text;
    setImmediate(() => this.emit('drain'));
    return false;
  }
  end(text: string) {
    this.body += text;
  }
  destroy() {
    this.destroyed = true;
  }
}

async function* lines(count: number): AsyncGenerator<string> {
  for (let i = 0; i < count; i++) yield `{"n":${i}}\n`;
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
    res.write = (text: string) => {
      res.body += text;
      setImmediate(() => {
        res.destroyed = true;
        res.emit('close');
      });
      return false;
    };
    await streamInventory(res as unknown as Response, lines(100), NDJSON_FORMAT);
    expect(res.body.split('\n').filter(Boolean).length).toBeLessThan(100);
  });
});
