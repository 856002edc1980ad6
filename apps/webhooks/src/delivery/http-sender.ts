import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { LookupFunction } from 'node:net';
import { CheckedTarget } from '../targets/target-guard';

/** One attempt's outcome: the status, or the reason it got none. */
export interface SendOutcome {
  statusCode?: number;
  error?: string;
  durationMs: number;
}

/** An attempt's whole deadline (connect, send, answer), not an idle timeout. */
export const ATTEMPT_DEADLINE_MS = 10_000;
/** What is read of an answer's body: nothing is kept, a receiver cannot make us buffer. */
const MAX_ANSWER_OCTETS = 64 * 1024;

/**
 * POSTs one signed body to a checked target, connecting to the address that was checked (the
 * URL's host is still the TLS name and the Host header). No redirect is followed: a 3xx is a
 * failed attempt like any other non-2xx.
 */
export function sendOnce(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  deadlineMs = ATTEMPT_DEADLINE_MS,
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else callback(null, target.address, target.family);
  };
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const req = send(
      target.url,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'ca-manager-webhooks',
        },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_OCTETS) res.destroy();
        });
        const done = () => finish({ statusCode: res.statusCode });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${deadlineMs / 1000} s` });
      req.destroy();
    }, deadlineMs);
    req.on('error', (err) => finish({ error: describe(err) }));
    req.end(body);
  });
}

function describe(err: Error & { code?: string }): string {
  return (err.code ? `${err.code}: ` : '') + err.message.slice(0, 200);
}
