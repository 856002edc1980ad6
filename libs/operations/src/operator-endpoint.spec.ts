import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runThroughOperatorEndpoint } from './operator-client';
import { OperatorEndpoint, listenForOperatorCommands } from './operator-endpoint';
import {
  OPERATOR_ENDPOINT_FILE,
  OPERATOR_ENDPOINT_PATH,
  OperatorEndpointInfo,
  UsageError,
} from './operator-protocol';

const collect = () => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
};

describe('operator endpoint', () => {
  let dataDir: string;
  let endpoint: OperatorEndpoint;
  const logger = { error: jest.fn() };

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ops-endpoint-'));
    endpoint = await listenForOperatorCommands({
      dataDir,
      logger,
      run: async (argv, io) => {
        if (argv[0] === 'bad') throw new UsageError('unknown command "bad"');
        if (argv[0] === 'boom') throw new Error('the database is gone');
        await io.out(`default ${argv.join(' ')}`);
        await io.err('a warning');
        return 0;
      },
      commandGroups: {
        custody: async (args, io) => {
          await io.out(`custody ${args.join(' ')}`);
          return 3;
        },
      },
    });
  });

  afterEach(async () => {
    await endpoint.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const run = async (argv: string[]) => {
    const stdout = collect();
    const stderr = collect();
    const exit = await runThroughOperatorEndpoint(dataDir, argv, {
      stdout: stdout.stream,
      stderr: stderr.stream,
    });
    return { exit, out: stdout.text(), err: stderr.text() };
  };

  it('leaves its address and secret in DATA_DIR for its owner only, and removes them on close', async () => {
    const file = join(dataDir, OPERATOR_ENDPOINT_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url: endpoint.url, pid: process.pid });
    await endpoint.close();
    expect(() => statSync(file)).toThrow();
  });

  it('runs the default commands and streams their lines and exit code back', async () => {
    expect(await run(['tenant', 'show', 't1'])).toEqual({
      exit: 0,
      out: 'default tenant show t1\n',
      err: 'a warning\n',
    });
  });

  it('hands a group its arguments without the group word', async () => {
    expect(await run(['custody', 'rotate-kek'])).toEqual({ exit: 3, out: 'custody rotate-kek\n', err: '' });
  });

  it('answers a usage error with exit 2 and a failure with exit 1', async () => {
    expect(await run(['bad'])).toEqual({ exit: 2, out: '', err: 'ops: unknown command "bad"\n' });
    expect(await run(['boom'])).toEqual({
      exit: 1,
      out: '',
      err: 'ops: the command failed: the database is gone\n',
    });
    expect(logger.error).toHaveBeenCalledWith(expect.anything(), 'operator command failed');
  });

  it('refuses a call without the secret, another path, and a body without argv', async () => {
    const info = JSON.parse(
      readFileSync(join(dataDir, OPERATOR_ENDPOINT_FILE), 'utf8'),
    ) as OperatorEndpointInfo;
    const post = (path: string, secret: string, body: string) =>
      fetch(`${info.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body });
    expect((await post(OPERATOR_ENDPOINT_PATH, 'wrong', '{"argv":[]}')).status).toBe(401);
    expect((await post('/v1/other', info.secret, '{"argv":[]}')).status).toBe(404);
    expect((await post(OPERATOR_ENDPOINT_PATH, info.secret, '{"argv":[1]}')).status).toBe(400);
  });

  it('tells the operator when no system runs on DATA_DIR', async () => {
    await endpoint.close();
    const answer = await run(['tenant', 'show', 't1']);
    expect(answer.exit).toBe(1);
    expect(answer.err).toMatch(/no running CA Manager found/);
  });
});
