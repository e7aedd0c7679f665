// Shared hooks: a one-second clock and a loader for GET screens.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { api } from '../state/app';

// One interval for every countdown on the page, so they tick together.
const tickers = new Set<(now: number) => void>();
let tickTimer: ReturnType<typeof setInterval> | undefined;

export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    tickers.add(setNow);
    tickTimer ??= setInterval(() => {
      const t = Date.now();
      for (const fn of tickers) fn(t);
    }, 1000);
    return () => {
      tickers.delete(setNow);
      if (tickers.size === 0) {
        clearInterval(tickTimer);
        tickTimer = undefined;
      }
    };
  }, []);
  return now;
}

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
  /** Replaces the data with a fresher copy (e.g. a POST's reply). */
  set: (data: T) => void;
}

/** GETs path (when non-null) and re-GETs on reload(). Stale replies are dropped. */
export function useLoad<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: path !== null });
  const [gen, setGen] = useState(0);
  const current = useRef(0);
  useEffect(() => {
    if (path === null) return;
    const ctl = new AbortController();
    const mine = ++current.current;
    setState((s) => ({ ...s, loading: true }));
    api
      .get<T>(path, ctl.signal)
      .then((data) => mine === current.current && setState({ data, error: null, loading: false }))
      .catch((err: unknown) => {
        if (mine !== current.current || (err as Error).name === 'AbortError') return;
        setState((s) => ({ data: s.data, error: err instanceof ApiError ? err : new ApiError(String(err), 0, path), loading: false }));
      });
    return () => ctl.abort();
  }, [path, gen]);
  const reload = useCallback(() => setGen((g) => g + 1), []);
  const set = useCallback((data: T) => setState({ data, error: null, loading: false }), []);
  return { ...state, reload, set };
}
