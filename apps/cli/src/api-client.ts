/** An RFC 9457 Problem Details body as the admin API sends it (docs/api.md#errors). */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  recovery?: string;
  requestId?: string;
  errors?: { field: string; message: string }[];
}

/** A failed call: the HTTP status and the Problem Details (or what the server sent instead). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

/** The server could not be reached at all (refused, DNS, timeout). */
export class ConnectionError extends Error {}

/** A thin client of the administrative API (docs/api.md#operations): bearer token, JSON in and out. */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  /** A streamed answer (docs/api.md#export-certificates), chunk by chunk as it arrives. */
  async *stream(path: string, accept: string): AsyncGenerator<Uint8Array> {
    const url = new URL(path, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    let response: Response;
    try {
      response = await fetch(url, { headers: { authorization: `Bearer ${this.token}`, accept } });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ConnectionError(
        `cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? String(error)}`,
      );
    }
    if (!response.ok) throw new ApiError(response.status, problemOf(response, await response.text()));
    if (!response.body) return;
    for await (const chunk of response.body) yield chunk;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = new URL(path, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ConnectionError(
        `cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? String(error)}`,
      );
    }
    const text = await response.text();
    if (!response.ok) throw new ApiError(response.status, problemOf(response, text));
    return JSON.parse(text) as T;
  }
}

/** The body as a Problem; a 401 without one (docs/api.md#operations) is described from WWW-Authenticate. */
function problemOf(response: Response, text: string): Problem {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') return parsed as Problem;
  } catch {
    // not JSON: fall through
  }
  const challenge = response.headers.get('www-authenticate');
  return {
    status: response.status,
    title: response.statusText,
    detail: challenge ? `the token was refused (${challenge})` : text.slice(0, 200) || undefined,
  };
}
