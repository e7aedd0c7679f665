import type { Store } from './store';

/** The page title carries the pending count; the desktop app mirrors it into the window title and the taskbar. */
export function pageTitle(pending: number): string {
  return pending > 0 ? `(${pending}) Gatehouse` : 'Gatehouse';
}

/**
 * Keeps the title in step with the store. It is a store subscription, not a
 * component effect: effects in a hidden window's page run late, and once
 * the title read "Gatehouse" while a card showed.
 */
export function bindTitle<T>(store: Store<T>, pending: (s: T) => number, doc: { title: string } = document): () => void {
  const apply = () => {
    const t = pageTitle(pending(store.get()));
    if (doc.title !== t) doc.title = t;
  };
  apply();
  return store.subscribe(apply);
}
