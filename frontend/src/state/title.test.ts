import { describe, expect, it } from 'vitest';
import { createStore } from './store';
import { bindTitle, pageTitle } from './title';

describe('page title', () => {
  it('carries the pending count', () => {
    expect(pageTitle(0)).toBe('Gatehouse');
    expect(pageTitle(3)).toBe('(3) Gatehouse');
  });

  it('follows every store change at once, and stops when unbound', () => {
    const store = createStore({ approvals: [] as string[] });
    const doc = { title: 'Gatehouse' };
    const unbind = bindTitle(store, (s) => s.approvals.length, doc);
    store.set({ approvals: ['a'] });
    expect(doc.title).toBe('(1) Gatehouse');
    store.set({ approvals: ['a', 'b'] });
    expect(doc.title).toBe('(2) Gatehouse');
    store.set({ approvals: [] });
    expect(doc.title).toBe('Gatehouse');
    unbind();
    store.set({ approvals: ['c'] });
    expect(doc.title).toBe('Gatehouse');
  });
});
