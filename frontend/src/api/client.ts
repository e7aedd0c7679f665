// Thin JSON client for /api/v1. Every failure becomes an ApiError whose
// message is one sentence fit for the error banner: the daemon's own
// {"error": "..."} when it sent one, otherwise a plain description.

export class ApiError extends Error {
  constructor(
    message: string,
    /** HTTP status; 0 when the daemon could not be reached at all. */
    readonly status: number,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  get unreachable(): boolean {
    return this.status === 0;
  }
  get notFound(): boolean {
    return this.status === 404;
  }
}

export interface ClientOptions {
  /** Returns the bearer token, or null in the desktop window. */
  token: () => string | null;
  fetch?: typeof fetch;
  /** Called on 401 so the app can show the login screen. */
  onUnauthorized?: () => void;
}

export class ApiClient {
  private readonly fetchFn: typeof fetch;
  constructor(private readonly opts: ClientOptions) {
    // Bound so a bare window.fetch does not lose its receiver.
    this.fetchFn = opts.fetch ?? fetch.bind(globalThis);
  }

  headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = { Accept: 'application/json' };
    const t = this.opts.token();
    if (t) h.Authorization = `Bearer ${t}`;
    if (json) h['Content-Type'] = 'application/json';
    return h;
  }

  /** Raw request with auth headers; used by the event stream. */
  async raw(path: string, init: RequestInit = {}): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetchFn(path, { ...init, headers: { ...this.headers(init.body !== undefined), ...(init.headers as Record<string, string> | undefined) } });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError('Cannot reach the Gatehouse daemon.', 0, path);
    }
    if (!res.ok) throw await errorFrom(res, path, this.opts.onUnauthorized);
    return res;
  }

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const init: RequestInit = { method };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    const res = await this.raw(path, init);
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    if (text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError(`The daemon sent a malformed reply to ${method} ${path}.`, res.status, path);
    }
  }

  get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, undefined, signal);
  }
  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('POST', path, body);
  }
  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }
  del<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }
}

async function errorFrom(res: Response, path: string, onUnauthorized?: () => void): Promise<ApiError> {
  if (res.status === 401) onUnauthorized?.();
  let msg = '';
  try {
    const text = await res.text();
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') msg = parsed.error;
  } catch {
    // Not JSON (a proxy page, a crash): fall through to a generic sentence.
  }
  if (!msg) {
    msg =
      res.status === 404
        ? `This daemon does not offer ${path} yet.`
        : res.status === 401
          ? 'The daemon did not accept the login token; run `gatehouse open` for a fresh link.'
          : `The daemon answered HTTP ${res.status} for ${path}.`;
  }
  return new ApiError(msg, res.status, path);
}

/** Builds a query string from the non-empty values. */
export function query(params: Record<string, string | number | undefined | null | false>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
