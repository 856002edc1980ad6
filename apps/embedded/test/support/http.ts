import { AddressInfo, createServer } from 'node:net';
import { eventually as poll } from '@ca/messaging/testing';

/** One HTTP exchange as a test reads it: the status, the headers and the body (raw and as text). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  text: string;
  json<T = unknown>(): T;
}

/** Loopback ports free right now (listened on once and released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject).listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** `fetch` without following redirects, the body read whole. */
export async function http(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const body = Buffer.from(await response.arrayBuffer());
  const text = body.toString('utf8');
  return {
    status: response.status,
    headers: response.headers,
    body,
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

/** Polls until `probe` returns a value (not undefined) or the time is up (every 100 ms). */
export const eventually = <T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000, what = 'condition') =>
  poll(probe, what, timeoutMs);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
