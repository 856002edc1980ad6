import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BatchedLogDestination } from './log-destination';

describe('BatchedLogDestination', () => {
  it('writes the lines of one event-loop turn together, in order, at the next turn', async () => {
    const writes: string[] = [];
    const destination = new BatchedLogDestination({ write: (text) => writes.push(text) });
    destination.write('a\n');
    destination.write('b\n');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    destination.write('c\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes what is pending at once when flushed', () => {
    const writes: string[] = [];
    const destination = new BatchedLogDestination({ write: (text) => writes.push(text) });
    destination.write('a\n');
    destination.flushSync();
    expect(writes).toEqual(['a\n']);
  });
});

describe('standard output of createLogger', () => {
  const LINES = 5_000;
  // A process that logs and then ends at once, in the way given: every line must reach the pipe.
  const run = (ending: string) => {
    const logger = join(__dirname, 'logger.ts');
    const script = `
      const { createLogger } = require(${JSON.stringify(logger)});
      const logger = createLogger({ level: 'info', service: 'exit-test' });
      for (let i = 0; i < ${LINES}; i++) logger.info({ i }, 'line');
      ${ending}`;
    const child = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      cwd: join(__dirname, '..', '..', '..'),
    });
    const lines = child.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { i?: number; msg: string; level: number });
    return { status: child.status, lines };
  };

  it.each([
    ['process.exit(0) right after logging', 'process.exit(0);', 0],
    ['a fatal line and process.exit(1)', "logger.fatal('start-up failed'); process.exit(1);", 1],
    ['an uncaught exception', "throw new Error('boom');", 1],
  ])(
    'loses no line at exit: %s',
    (_name, ending, status) => {
      const { status: exitStatus, lines } = run(ending);
      expect(exitStatus).toBe(status);
      const numbered = lines.filter((l) => l.msg === 'line');
      expect(numbered).toHaveLength(LINES);
      expect(numbered.every((l, index) => l.i === index)).toBe(true);
      if (ending.includes('fatal')) expect(lines[lines.length - 1]).toMatchObject({ level: 60 });
    },
    30_000,
  );
});
