// Timeline filters: session, kind (exact or family "tool."), actor go to
// the server; free text is matched here against the whole event. The view
// is not a filter: one row per call (the default) or every audit event.

import type { AuditEvent } from '../api/types';

export type View = 'calls' | 'events';

export interface Filter {
  session: string;
  kind: string;
  actor: string;
  text: string;
  /** calls: a tool call's audit rows fold into one row; events: every audit row. */
  view?: View;
}

export const NO_FILTER: Filter = { session: '', kind: '', actor: '', text: '' };

export function viewOf(f: Filter): View {
  return f.view ?? 'calls';
}

export function isUnfiltered(f: Filter): boolean {
  return !f.session && !f.kind && !f.actor && !f.text.trim();
}

export function filterFromParams(s: string): Filter {
  const q = new URLSearchParams(s);
  const f: Filter = { session: q.get('session') ?? '', kind: q.get('kind') ?? '', actor: q.get('actor') ?? '', text: q.get('q') ?? '' };
  if (q.get('view') === 'events') f.view = 'events';
  return f;
}

export function filterToParams(f: Filter): string {
  const q = new URLSearchParams();
  if (f.session) q.set('session', f.session);
  if (f.kind) q.set('kind', f.kind);
  if (f.actor) q.set('actor', f.actor);
  if (f.text) q.set('q', f.text);
  if (viewOf(f) === 'events') q.set('view', 'events');
  return q.toString();
}

const textCache = new WeakMap<AuditEvent, string>();

function eventText(e: AuditEvent): string {
  let t = textCache.get(e);
  if (t === undefined) {
    t = `${e.seq} ${e.kind} ${e.actor} ${e.session} ${e.call_id} ${JSON.stringify(e.payload ?? {})}`.toLowerCase();
    textCache.set(e, t);
  }
  return t;
}

/** Same rules as the server's filter, plus the text search. */
export function matches(f: Filter, e: AuditEvent): boolean {
  if (f.session && e.session !== f.session) return false;
  if (f.actor && e.actor !== f.actor) return false;
  if (f.kind) {
    if (f.kind.endsWith('.') ? !e.kind.startsWith(f.kind) : e.kind !== f.kind) return false;
  }
  const text = f.text.trim().toLowerCase();
  if (text) {
    const hay = eventText(e);
    // Every word must appear, in any order.
    for (const w of text.split(/\s+/)) if (!hay.includes(w)) return false;
  }
  return true;
}
