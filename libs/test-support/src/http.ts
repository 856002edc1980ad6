/** One HTTP exchange as a test reads it: the status, the headers and the body (raw and as text). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  text: string;
  json<T = unknown>(): T;
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
