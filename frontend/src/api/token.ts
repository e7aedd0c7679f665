// A login link (`gatehouse open`) carries a one-time code in its fragment
// (never sent to a server, never logged): the page trades it at once for a
// control token of its own and the code is used up, so the link signs in
// one tab, once. The token is kept in sessionStorage (gone when the tab
// closes). A control token itself may also come as #token=…. Either is
// removed from the address bar at once so it does not end up in history,
// bookmarks or screenshots.

export const TOKEN_KEY = 'gatehouse.control-token';

export interface TokenEnv {
  location: { protocol: string; hostname: string; pathname: string; search: string; hash: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  storage: { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void };
  /** True inside the Wails window (window.go / window.runtime exist). */
  desktop: boolean;
}

/**
 * `link`: a login link's code waits to be traded (see redeemLink).
 * `expired`: a token was in use and the daemon stopped accepting it.
 * `linkUsed`: the login link was used already (or expired).
 */
export type Auth =
  | { kind: 'desktop' }
  | { kind: 'token'; token: string }
  | { kind: 'link'; code: string }
  | { kind: 'missing'; expired?: boolean; linkUsed?: boolean };

/** The one route a login link's code opens. */
export const LOGIN_PATH = '/api/v1/login';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** In the desktop window the API is answered in-process and needs no token. */
export function isDesktop(env: Pick<TokenEnv, 'location' | 'desktop'>): boolean {
  if (env.desktop) return true;
  const { protocol, hostname } = env.location;
  return !(protocol === 'http:' || protocol === 'https:') || !LOOPBACK.has(hostname);
}

/**
 * Takes a #login=… code or a #token=… token out of the URL (a token goes
 * into storage) and says how to authenticate.
 */
export function takeToken(env: TokenEnv): Auth {
  const hash = env.location.hash.replace(/^#/, '');
  let code = '';
  // The fragment may carry other parameters too (#token=…&x=y); keep those.
  if (/(^|&)(token|login)=/.test(hash)) {
    const params = new URLSearchParams(hash);
    const token = params.get('token')?.trim() ?? '';
    code = params.get('login')?.trim() ?? '';
    params.delete('token');
    params.delete('login');
    const rest = params.toString();
    env.history.replaceState(null, '', env.location.pathname + env.location.search + (rest ? '#' + rest : ''));
    if (token) env.storage.setItem(TOKEN_KEY, token);
  }
  if (isDesktop(env)) return { kind: 'desktop' };
  if (code) return { kind: 'link', code };
  const stored = env.storage.getItem(TOKEN_KEY);
  return stored ? { kind: 'token', token: stored } : { kind: 'missing' };
}

/**
 * Trades a login link's code for a control token, once: a second use of
 * the same link is refused by the daemon, and the page says so.
 */
export async function redeemLink(code: string, env: Pick<TokenEnv, 'storage'>, fetchFn: typeof fetch = fetch.bind(globalThis)): Promise<Auth> {
  let res: Response;
  try {
    res = await fetchFn(LOGIN_PATH, { method: 'POST', headers: { Accept: 'application/json', Authorization: `Bearer ${code}` } });
  } catch {
    return { kind: 'missing' };
  }
  if (!res.ok) return { kind: 'missing', linkUsed: res.status === 401 };
  const body = (await res.json().catch(() => ({}))) as { token?: unknown };
  if (typeof body.token !== 'string' || body.token === '') return { kind: 'missing' };
  env.storage.setItem(TOKEN_KEY, body.token);
  return { kind: 'token', token: body.token };
}

export function forgetToken(env: Pick<TokenEnv, 'storage'>): void {
  env.storage.removeItem(TOKEN_KEY);
}

export function browserEnv(): TokenEnv {
  const w = window as unknown as { go?: unknown; runtime?: unknown };
  return { location: window.location, history: window.history, storage: window.sessionStorage, desktop: w.go !== undefined || w.runtime !== undefined };
}
