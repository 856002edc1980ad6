import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import {
  OPERATOR_ENDPOINT_FILE,
  OPERATOR_ENDPOINT_PATH,
  OperatorEndpointInfo,
  OperatorFrame,
} from './operator-protocol';

export interface OperatorStreams {
  stdout: Writable;
  stderr: Writable;
}

/**
 * The CLI's side of the embedded operator endpoint: reads DATA_DIR/ops.json, sends the arguments,
 * copies the answer's lines to standard output and error, and returns the command's exit code.
 */
export async function runThroughOperatorEndpoint(
  dataDir: string,
  argv: readonly string[],
  streams: OperatorStreams,
): Promise<number> {
  const fail = (message: string) => {
    streams.stderr.write(`ops: ${message}\n`);
    return 1;
  };
  const file = join(dataDir, OPERATOR_ENDPOINT_FILE);
  let info: OperatorEndpointInfo;
  try {
    info = JSON.parse(readFileSync(file, 'utf8')) as OperatorEndpointInfo;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return fail(
        `no running CA Manager found: ${file} does not exist. Start it with npm start (same DATA_DIR), or set DATABASE_URL to reach its Postgres directly.`,
      );
    }
    return fail(`cannot read ${file}: ${(error as Error).message}`);
  }
  const body = JSON.stringify({ argv });
  return new Promise<number>((resolve) => {
    const req = request(
      `${info.url}${OPERATOR_ENDPOINT_PATH}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${info.secret}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          resolve(fail(`the operator endpoint at ${info.url} answered ${res.statusCode}`));
          return;
        }
        void copyFrames(res, streams).then(
          (exit) => resolve(exit ?? fail('the operator endpoint closed the connection early')),
          (error: Error) => resolve(fail(`reading the answer failed: ${error.message}`)),
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve(
        fail(
          error.code === 'ECONNREFUSED'
            ? `the CA Manager of ${dataDir} is not running (nothing answers at ${info.url}; ${file} is left from an earlier run)`
            : `cannot reach the operator endpoint at ${info.url}: ${error.message}`,
        ),
      ),
    );
    req.end(body);
  });
}

async function copyFrames(
  input: NodeJS.ReadableStream,
  streams: OperatorStreams,
): Promise<number | undefined> {
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line === '') continue;
    const frame = JSON.parse(line) as OperatorFrame;
    if ('exit' in frame) return frame.exit;
    const [stream, text] = 'out' in frame ? [streams.stdout, frame.out] : [streams.stderr, frame.err];
    if (!stream.write(`${text}\n`)) await new Promise((resolve) => stream.once('drain', resolve));
  }
  return undefined;
}
