import { Server } from 'node:http';
import { Socket } from 'node:net';
import { CaError, ErrorCode } from '@ca/contracts';
import { PROBLEM_CONTENT_TYPE, toProblemDocument } from '@ca/problem';

/**
 * Node refuses request headers above 16 KB with a bare 431. The admin API lets headers up to
 * this size through, so that an oversized bearer token reaches the token verifier and gets the
 * 401 `invalid_token` of docs/api.md#tokens; anything larger is refused here with a 431 problem.
 */
export const MAX_HEADER_BYTES = 96 * 1024;

/**
 * Raises the header limit of the admin API's server and answers connection-level client errors
 * (header overflow, malformed request lines) with a Problem Details body instead of Node's empty
 * default answer.
 */
export function applyHeaderLimits(server: Server, catalogUrl: string): void {
  // Read per connection by Node's HTTP parser; set before the first connection is accepted.
  // (Node reads the option from this field; @types/node only declares it as a constructor option.)
  (server as Server & { maxHeaderSize?: number }).maxHeaderSize = MAX_HEADER_BYTES;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const caError = tooLarge
      ? new CaError(ErrorCode.RequestHeadersTooLarge, 'The request headers are too large.')
      : CaError.validation([{ field: 'request', message: 'the HTTP request is malformed' }]);
    const problem = JSON.stringify(toProblemDocument(caError, { catalogUrl, requestId: 'unknown' }));
    const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
    socket.end(
      `HTTP/1.1 ${tooLarge ? 431 : 400} ${reason}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(problem)}\r\nConnection: close\r\n\r\n${problem}`,
    );
  });
}
