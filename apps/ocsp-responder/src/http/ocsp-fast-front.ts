import { Server } from 'node:http';
import { Socket } from 'node:net';
import { ACCEPT_GATE, clientGateOf } from '@ca/runtime';
import { OcspAnswer } from '../ocsp/ocsp.responder';
import { SimpleOcspRequest, parseSimpleOcspRequest } from './ocsp-request-head';
import { simpleOcspAnswer } from './simple-ocsp-answer';

/** The answer to a simple OCSP request when it is ready in memory, without I/O; else undefined. */
export type SimpleOcspAnswerer = (request: SimpleOcspRequest) => OcspAnswer | undefined;

/** Told of each answer the front sent itself (request metrics): its method and duration. */
export type FastAnswerListener = (method: 'POST' | 'GET', seconds: number) => void;

type ConnectionListener = (this: Server, socket: Socket) => void;

const noop = () => undefined;
/** How often held connections past their idle deadline are ended. */
const SWEEP_MS = 1_000;
/** A server timeout of 0 means none (Node's convention). */
const NO_TIMEOUT_MS = 2 ** 31;

/**
 * A front on `server`'s connections for the hot request shape of relying parties: an OCSP POST
 * or GET that arrives whole in the connection's next read and whose answer is in memory is
 * answered here, in one socket write, without Node's HTTP machinery (IncomingMessage,
 * ServerResponse, header objects: most of the CPU of a fresh-connection answer). Anything else,
 * from the first byte it could not answer on, goes to Node's HTTP server unchanged, which then
 * keeps the connection: the front only ever holds connections that are between requests.
 *
 * Keep-alive as Node's server does it: HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with
 * `Connection: keep-alive`; idle connections end after `keepAliveTimeout` (up to a second later:
 * one sweep for all); `close()` (through
 * `closeIdleConnections`, which Node's `server.close()` calls) ends the ones the front holds.
 */
export function installOcspFastFront(
  server: Server,
  answerOf: SimpleOcspAnswerer,
  onAnswered: FastAnswerListener = noop,
): void {
  // The client gate (per-client connection caps) stays first on every accepted connection.
  const nodeListeners = (server.listeners('connection') as ConnectionListener[]).filter(
    (listener) => !(ACCEPT_GATE in listener),
  );
  for (const listener of nodeListeners) server.removeListener('connection', listener);
  const gate = clientGateOf(server);
  /** The connections held, each with the time it is ended at if no request comes. */
  const held = new Map<Socket, number>();
  // One sweep for all held connections rather than a timer each (a timer per fresh connection
  // showed in the profile); so an idle connection ends up to a sweep period late.
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [socket, deadline] of held) if (deadline <= now) socket.destroy();
  }, SWEEP_MS);
  sweeper.unref(); // kept while the server lives (it may listen again); never holds the process

  function hold(socket: Socket): void {
    // Until the first request: the server's headersTimeout (Node's bound for a request head).
    held.set(socket, Date.now() + (server.headersTimeout || NO_TIMEOUT_MS));
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onError);
    socket.on('close', onClose);
  }

  function release(socket: Socket): void {
    held.delete(socket);
    socket.removeListener('data', onData);
    socket.removeListener('end', onEnd);
    socket.removeListener('error', onError);
    socket.removeListener('close', onClose);
  }

  /** Node's server takes the connection with `bytes` still to read, before what comes next. */
  function handOver(socket: Socket, bytes: Buffer): void {
    release(socket);
    socket.unshift(bytes);
    for (const listener of nodeListeners) listener.call(server, socket);
    // Node's server reads the socket's handle in C++ ("consumed") unless a 'data' listener is
    // added after it took the socket; with one, every byte goes through the stream, in order:
    // the bytes unshifted above, then the rest.
    socket.on('data', noop);
    socket.removeListener('data', noop);
  }

  function onData(this: Socket, bytes: Buffer): void {
    const started = performance.now();
    let request: SimpleOcspRequest | undefined;
    let response: Buffer | undefined;
    // Once the server closes, no connection stays open (as Node's server does).
    let keepAlive = false;
    try {
      request = parseSimpleOcspRequest(bytes);
      // Only answers every cache may keep are fast: an `unknown` (a serial not seen yet) or any
      // other answer for this request only goes the full path, which signs it afresh.
      const candidate = request && answerOf(request);
      const answer = candidate?.cache && !candidate.unknown ? candidate : undefined;
      keepAlive = request !== undefined && request.keepAlive && server.listening;
      response =
        request &&
        answer &&
        simpleOcspAnswer(answer, {
          method: request.method,
          keepAlive,
          keepAliveTimeoutMs: server.keepAliveTimeout,
          now: Date.now(),
        });
    } catch {
      // Nothing written yet: Node's path answers this one, and reports whatever failed.
      response = undefined;
    }
    // Over its request rate (or through a trusted proxy): Node's path, where the gate answers.
    if (!request || !response || (gate && !gate.admitFast(this))) return handOver(this, bytes);
    if (keepAlive) {
      this.write(response);
      held.set(this, Date.now() + (server.keepAliveTimeout || NO_TIMEOUT_MS));
    } else {
      release(this);
      this.on('error', noop);
      this.end(response, () => this.destroy());
    }
    onAnswered(request.method, (performance.now() - started) / 1000);
  }

  function onEnd(this: Socket): void {
    // The client is done, and no answer is pending (the front answers synchronously).
    this.end();
  }

  function onError(this: Socket): void {
    this.destroy();
  }

  function onClose(this: Socket): void {
    held.delete(this);
  }

  server.on('connection', hold);

  const closeIdleConnections = server.closeIdleConnections.bind(server);
  const closeAllConnections = server.closeAllConnections.bind(server);
  const destroyHeld = () => {
    for (const socket of held.keys()) socket.destroy();
    held.clear();
  };
  server.closeIdleConnections = () => {
    destroyHeld();
    closeIdleConnections();
  };
  server.closeAllConnections = () => {
    destroyHeld();
    closeAllConnections();
  };
}
