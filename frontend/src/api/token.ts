// The control token travels in the login link's fragment (never sent to a
// server, never logged), is kept in sessionStorage (gone when the tab
// closes) and removed from the address bar at once so it does not end up in
// history, bookmarks or screenshots.

export const TOKEN_KEY = 'gatehouse.control-token';

export interface TokenEnv {
  location: { protocol: string; hostname: string; pathname: string; search: string; hash: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  storage: { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void };
  /** True inside the Wails window (window.go / window.runtime exist). */
  desktop: boolean;
}

/** `expired`: a token was in use and the daemon stopped accepting it. */
export type Auth = { kind: 'desktop' } | { kind: 'token'; token: string } | { kind: 'missing'; expired?: boolean };

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** In the desktop window the API is answered in-process and needs no token. */
export function isDesktop(env: Pick<TokenEnv, 'location' | 'desktop'>): boolean {
  if (env.desktop) return true;
  const { protocol, hostname } = env.location;
  return !(protocol === 'http:' || protocol === 'https:') || !LOOPBACK.has(hostname);
}

/** Moves a #token=… fragment into storage, strips it from the URL, and says how to authenticate. */
export function takeToken(env: TokenEnv): Auth {
  const hash = env.location.hash.replace(/^#/, '');
  // The fragment may carry other parameters too (#token=…&x=y); keep those.
  if (/(^|&)token=/.test(hash)) {
    const params = new URLSearchParams(hash);
    const token = params.get('token')?.trim() ?? '';
    params.delete('token');
    const rest = params.toString();
    env.history.replaceState(null, '', env.location.pathname + env.location.search + (rest ? '#' + rest : ''));
    if (token) env.storage.setItem(TOKEN_KEY, token);
  }
  if (isDesktop(env)) return { kind: 'desktop' };
  const stored = env.storage.getItem(TOKEN_KEY);
  return stored ? { kind: 'token', token: stored } : { kind: 'missing' };
}

export function forgetToken(env: Pick<TokenEnv, 'storage'>): void {
  env.storage.removeItem(TOKEN_KEY);
}

export function browserEnv(): TokenEnv {
  const w = window as unknown as { go?: unknown; runtime?: unknown };
  return { location: window.location, history: window.history, storage: window.sessionStorage, desktop: w.go !== undefined || w.runtime !== undefined };
}
