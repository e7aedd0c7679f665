import { describe, expect, it } from 'vitest';
import { LOGIN_PATH, TOKEN_KEY, forgetToken, isDesktop, redeemLink, takeToken, type TokenEnv } from './token';

function env(url: string, desktop = false) {
  const u = new URL(url);
  const store = new Map<string, string>();
  const replaced: string[] = [];
  const e: TokenEnv = {
    location: { protocol: u.protocol, hostname: u.hostname, pathname: u.pathname, search: u.search, hash: u.hash },
    history: { replaceState: (_d, _u, to) => replaced.push(to ?? '') },
    storage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v), removeItem: (k) => void store.delete(k) },
    desktop,
  };
  return { e, store, replaced };
}

describe('takeToken', () => {
  it('moves the fragment token into sessionStorage and strips it from the URL', () => {
    const { e, store, replaced } = env('http://127.0.0.1:7465/?x=1#token=abc123');
    expect(takeToken(e)).toEqual({ kind: 'token', token: 'abc123' });
    expect(store.get(TOKEN_KEY)).toBe('abc123');
    expect(replaced).toEqual(['/?x=1']);
  });

  it('keeps other fragment parameters', () => {
    const { e, replaced } = env('http://localhost:9/#view=timeline&token=t');
    takeToken(e);
    expect(replaced).toEqual(['/#view=timeline']);
  });

  it('uses the stored token when the URL has none and leaves the URL alone', () => {
    const { e, store, replaced } = env('http://127.0.0.1:7465/#/timeline');
    store.set(TOKEN_KEY, 'kept');
    expect(takeToken(e)).toEqual({ kind: 'token', token: 'kept' });
    expect(replaced).toEqual([]);
  });

  it('reports a missing token on a loopback origin', () => {
    expect(takeToken(env('http://127.0.0.1:7465/').e)).toEqual({ kind: 'missing' });
  });

  it('an empty token= is stripped but not stored', () => {
    const { e, store, replaced } = env('http://127.0.0.1:1/#token=');
    expect(takeToken(e)).toEqual({ kind: 'missing' });
    expect(store.size).toBe(0);
    expect(replaced).toEqual(['/']);
  });

  it('needs no token in the desktop window', () => {
    expect(takeToken(env('http://127.0.0.1:7465/', true).e)).toEqual({ kind: 'desktop' });
    expect(takeToken(env('wails://wails/').e)).toEqual({ kind: 'desktop' });
    expect(isDesktop(env('http://wails.localhost/').e)).toBe(true);
    expect(isDesktop(env('http://[::1]:7465/').e)).toBe(false);
  });

  it('forgetToken clears storage', () => {
    const { e, store } = env('http://127.0.0.1:1/#token=z');
    takeToken(e);
    forgetToken(e);
    expect(store.size).toBe(0);
  });
});

describe('login links', () => {
  it('takes a #login= code out of the URL without storing it', () => {
    const { e, store, replaced } = env('http://127.0.0.1:7465/#login=code1&view=x');
    expect(takeToken(e)).toEqual({ kind: 'link', code: 'code1' });
    expect(store.size).toBe(0);
    expect(replaced).toEqual(['/#view=x']);
  });

  it('trades the code once for a stored token', async () => {
    const { e, store } = env('http://127.0.0.1:7465/');
    const calls: { path: string; auth: string }[] = [];
    const fetchFn = (async (path: string, init: RequestInit) => {
      calls.push({ path, auth: (init.headers as Record<string, string>).Authorization });
      return new Response(JSON.stringify({ token: 'browser-token' }), { status: 200 });
    }) as unknown as typeof fetch;
    expect(await redeemLink('code1', e, fetchFn)).toEqual({ kind: 'token', token: 'browser-token' });
    expect(store.get(TOKEN_KEY)).toBe('browser-token');
    expect(calls).toEqual([{ path: LOGIN_PATH, auth: 'Bearer code1' }]);
  });

  it('says so when the link was used already', async () => {
    const { e, store } = env('http://127.0.0.1:7465/');
    const used = (async () => new Response('{"error":"this login link was already used"}', { status: 401 })) as unknown as typeof fetch;
    expect(await redeemLink('code1', e, used)).toEqual({ kind: 'missing', linkUsed: true });
    expect(store.size).toBe(0);
    const down = (async () => {
      throw new TypeError('network');
    }) as unknown as typeof fetch;
    expect(await redeemLink('code1', e, down)).toEqual({ kind: 'missing' });
  });
});
