import { Session } from './session';

/** An error answer of the API, as Problem Details (RFC 9457) describe it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly recovery?: string,
    readonly code?: string,
    readonly fields: { field: string; message: string }[] = [],
  ) {
    super(detail);
  }
}

/** Called when the API says the token is no longer good (expired or revoked): back to sign-in. */
let onUnauthorized: (error: ApiError) => void = () => undefined;
export function whenUnauthorized(handler: (error: ApiError) => void): void {
  onUnauthorized = handler;
}

async function problemOf(response: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    body = await response.json();
  } catch {
    // not a problem document: the status says enough
  }
  const detail = typeof body.detail === 'string' ? body.detail : `The server answered ${response.status}.`;
  const errors = Array.isArray(body.errors)
    ? body.errors.filter(
        (e): e is { field: string; message: string } =>
          typeof e === 'object' && e !== null && typeof e.field === 'string' && typeof e.message === 'string',
      )
    : [];
  return new ApiError(
    response.status,
    detail,
    typeof body.recovery === 'string' ? body.recovery : undefined,
    typeof body.code === 'string' ? body.code : undefined,
    errors,
  );
}

export interface RequestOptions {
  body?: unknown;
  accept?: string;
  signal?: AbortSignal;
}

/** One call of the administrative API with the signed-in token; the raw response. */
export async function call(
  session: Session,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}` };
  if (options.accept) headers.accept = options.accept;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: 'omit',
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(
      0,
      'The administrative API cannot be reached.',
      'Check that the system runs, then try again.',
    );
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    if (response.status === 401) onUnauthorized(problem);
    throw problem;
  }
  return response;
}

/** One call answered with JSON. */
export async function api<T>(
  session: Session,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const response = await call(session, method, path, options);
  return (await response.json()) as T;
}

/** `?a=1&b=2` of the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Saves `contents` as a file the browser downloads. */
export function download(fileName: string, contents: Blob): void {
  const url = URL.createObjectURL(contents);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
