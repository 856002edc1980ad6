import { OcspAnswer } from '../ocsp/ocsp.responder';
import { ocspCacheHeaders } from './ocsp-cache-headers';

let dateSecond = -1;
let dateText = '';

/** The Date header's value (RFC 9110 6.6.1), made once per second as Node's own server does. */
export function httpDate(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

export interface SimpleAnswerOptions {
  method: 'POST' | 'GET';
  keepAlive: boolean;
  /** The server's keepAliveTimeout: Node announces it in a Keep-Alive header when set. */
  keepAliveTimeoutMs: number;
  now: number;
}

/** The bytes last made for a cached answer, by connection kind, and what they depend on. */
interface Made {
  second: number;
  maxAge: number;
  keepAliveTimeoutMs: number;
  close?: Buffer;
  keepAlive?: Buffer;
}
const made = new WeakMap<object, Made>();

/**
 * The whole HTTP answer (status line, headers, body) in one buffer, with the bytes Node's server
 * and `OcspHttp` send for the same answer: the same headers in the same order, caching headers
 * from `ocspCacheHeaders` (RFC 5019 6.2) for POST and GET alike.
 *
 * A cached answer's bytes change only with the second (Date, max-age): they are made once per
 * second and connection kind, and written again as they are (a socket write never changes them).
 */
export function simpleOcspAnswer(answer: OcspAnswer, options: SimpleAnswerOptions): Buffer {
  const cache = answer.cache;
  if (!cache) return answerBytes(answer, options);
  const second = Math.floor(options.now / 1000);
  const maxAge = Math.floor((cache.nextUpdate.getTime() - options.now) / 1000);
  let last = made.get(cache);
  if (
    !last ||
    last.second !== second ||
    last.maxAge !== maxAge ||
    last.keepAliveTimeoutMs !== options.keepAliveTimeoutMs
  ) {
    last = { second, maxAge, keepAliveTimeoutMs: options.keepAliveTimeoutMs };
    made.set(cache, last);
  }
  return options.keepAlive
    ? (last.keepAlive ??= answerBytes(answer, options))
    : (last.close ??= answerBytes(answer, options));
}

function answerBytes(answer: OcspAnswer, options: SimpleAnswerOptions): Buffer {
  let head = 'HTTP/1.1 200 OK\r\n';
  for (const [name, value] of ocspCacheHeaders(answer, options.now)) head += `${name}: ${value}\r\n`;
  head +=
    `Content-Type: application/ocsp-response\r\nContent-Length: ${answer.der.length}\r\n` +
    `Date: ${httpDate(options.now)}\r\n`;
  if (!options.keepAlive) head += 'Connection: close\r\n\r\n';
  else if (options.keepAliveTimeoutMs > 0)
    head += `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveTimeoutMs / 1000)}\r\n\r\n`;
  else head += 'Connection: keep-alive\r\n\r\n';

  const headLength = Buffer.byteLength(head, 'latin1');
  const bytes = Buffer.allocUnsafe(headLength + answer.der.length);
  bytes.write(head, 0, 'latin1');
  answer.der.copy(bytes, headLength);
  return bytes;
}
