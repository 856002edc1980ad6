import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * A stream in a fresh process, as the export is: 600 KB buffers (socket reads, replies) that each
 * live while the next eight are made, little allocated on the heap. Returns the highest memory
 * outside the heap seen, in MiB.
 */
function peakOutsideHeapMiB(withCollector: boolean): number {
  const script = `
    const { handedOn } = require(${JSON.stringify(join(__dirname, 'byte-stream-collector.ts'))});
    const inFlight = [];
    let peak = 0;
    (async () => {
      for (let i = 0; i < 600; i++) {
        const chunk = Buffer.allocUnsafe(600_000).fill(i & 0xff);
        inFlight.push(chunk);
        if (inFlight.length > 8) inFlight.shift();
        ${withCollector ? 'handedOn(chunk.byteLength);' : ''}
        await new Promise((resolve) => setImmediate(resolve));
        peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      }
      process.stdout.write(String(peak / 1048576));
    })();`;
  const child = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
    encoding: 'utf8',
    timeout: 25_000,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  expect(child.stderr).toBe('');
  return Number(child.stdout);
}

describe('handedOn', () => {
  it('keeps a byte stream’s garbage outside the heap well under V8’s own 64 MiB trigger', () => {
    const without = peakOutsideHeapMiB(false);
    const withCollector = peakOutsideHeapMiB(true);
    // V8 alone lets it grow until its external-memory trigger (about 43 MiB here, 64 at most).
    expect(withCollector).toBeLessThan(without - 8);
  }, 60_000);
});
