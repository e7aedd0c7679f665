// A minimal observable store: the app's shared state is small (status,
// pending approvals, connection), so a subscribe/select hook is all it needs.

import { useEffect, useRef, useState } from 'preact/hooks';

export interface Store<T> {
  get(): T;
  set(patch: Partial<T> | ((s: T) => Partial<T>)): void;
  subscribe(fn: () => void): () => void;
}

export function createStore<T extends object>(initial: T): Store<T> {
  let state = initial;
  const subs = new Set<() => void>();
  return {
    get: () => state,
    set(patch) {
      const p = typeof patch === 'function' ? patch(state) : patch;
      state = { ...state, ...p };
      for (const fn of subs) fn();
    },
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}

/** Re-renders when the selected slice changes (by Object.is). */
export function useStore<T, S>(store: Store<T>, select: (s: T) => S): S {
  const [value, setValue] = useState(() => select(store.get()));
  const selectRef = useRef(select);
  selectRef.current = select;
  useEffect(() => {
    const check = () => setValue(() => selectRef.current(store.get()));
    check();
    return store.subscribe(check);
  }, [store]);
  return value;
}

/** A plain fan-out of values to listeners (used for the live event stream). */
export class Emitter<V> {
  private subs = new Set<(v: V) => void>();
  on(fn: (v: V) => void): () => void {
    this.subs.add(fn);
    return () => this.subs.delete(fn);
  }
  emit(v: V): void {
    for (const fn of this.subs) fn(v);
  }
}
