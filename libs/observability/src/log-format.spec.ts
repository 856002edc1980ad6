import { Writable } from 'node:stream';
import { resolveLogFormat } from './log-format';
import { createLogger } from './logger';

describe('log format', () => {
  it('is readable on a terminal and JSON for anything else, unless LOG_FORMAT says which', () => {
    expect(resolveLogFormat('auto', { isTTY: true })).toBe('pretty');
    expect(resolveLogFormat('auto', { isTTY: false })).toBe('json');
    expect(resolveLogFormat('auto', {})).toBe('json');
    expect(resolveLogFormat('json', { isTTY: true })).toBe('json');
    expect(resolveLogFormat('pretty', {})).toBe('pretty');
  });

  function linesOf(
    format: 'json' | 'pretty',
    log: (logger: ReturnType<typeof createLogger>) => void,
  ): string[] {
    const chunks: string[] = [];
    const destination = new Writable({ write: (chunk, _e, done) => (chunks.push(String(chunk)), done()) });
    log(createLogger({ level: 'info', service: 'gateway', destination, format }));
    return chunks.join('').split('\n').filter(Boolean);
  }

  it('prints one line per event with the level, service, context, message and fields', () => {
    const [line, ...others] = linesOf('pretty', (logger) =>
      logger.warn({ context: 'Housekeeping', tenantId: 't-1' }, 'prune failed'),
    );
    expect(others).toEqual([]);
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: gateway \[Housekeeping\]: prune failed \{"tenantId":"t-1"\}$/,
    );
  });

  it('keeps JSON lines by default, as services, CI and containers read them', () => {
    const [line] = linesOf('json', (logger) => logger.info({ context: 'Housekeeping' }, 'pruned'));
    expect(JSON.parse(line)).toMatchObject({
      level: 30,
      service: 'gateway',
      context: 'Housekeeping',
      msg: 'pruned',
    });
  });
});
