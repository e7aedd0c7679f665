// The timeline by call: the audit rows of one tool call (tool.call,
// tool.validated, policy.decision, exec.started, checkpoint.created,
// exec.finished, tool.result …) fold into one row that says the tool, what
// it did and how it ended, and unfold into its steps; events that belong
// to no call (session start and end, workspace approvals, policy changes)
// stay rows of their own.
//
// Events arrive in any order: pages of older events from the server, live
// batches of newer ones. Each entry sits at its first event (a call does
// not jump to the top when it finishes), newest first. Rows are flattened
// once per change, so row(i) is O(1) however many thousands there are.

import type { AuditEvent } from '../api/types';
import { callOutcome, groupCalls, type CallSummary } from './calls';

export interface CallEntry {
  type: 'call';
  id: string;
  /** Its events, oldest first. */
  events: AuditEvent[];
  /** The seq of its first known event: where it sits. */
  key: number;
  /** Whether any of its events matches the filter. */
  match: boolean;
}

export interface EventEntry {
  type: 'event';
  event: AuditEvent;
  key: number;
  match: boolean;
}

export type Entry = CallEntry | EventEntry;

/** A row: an entry's own row (step -1), or one step of an unfolded call. */
export type FlatRow = { entry: EventEntry; step: -1 } | { entry: CallEntry; step: number };

/** What a call's row shows: the tool, what it did, how it ended. */
export interface CallView {
  summary: CallSummary;
  /** The agent that made it ("agent:claude-code"), else its first row's actor. */
  actor: string;
  session: string;
  outcome: { name: string; text: string; ended: boolean };
}

const views = new WeakMap<CallEntry, { n: number; view: CallView }>();

/** The call's row, computed from its events with the session view's own fold (lib/calls). */
export function callView(c: CallEntry): CallView {
  const cached = views.get(c);
  if (cached && cached.n === c.events.length) return cached.view;
  const summary = groupCalls(c.events)[0]!;
  const agent = c.events.find((e) => e.actor.startsWith('agent:'));
  const view: CallView = { summary, actor: (agent ?? c.events[0]!).actor, session: c.events[0]!.session, outcome: callOutcome(summary) };
  views.set(c, { n: c.events.length, view });
  return view;
}

export class EventGroups {
  private calls = new Map<string, CallEntry>();
  private seen = new Set<number>();
  private sorted: Entry[] = [];
  private rows: FlatRow[] = [];
  private headerAt = new Map<Entry, number>();
  private dirty = false;
  private open = new Set<string>();
  private nCalls = 0;
  private nEvents = 0;

  /** accept: whether an event matches the filter; an entry shows when any of its events does. */
  constructor(private readonly accept: (e: AuditEvent) => boolean = () => true) {}

  /** Events folded in so far. */
  get events(): number {
    return this.seen.size;
  }

  /** Rows, counting the steps of unfolded calls. */
  get count(): number {
    this.flatten();
    return this.rows.length;
  }

  /** Entries that show: calls, and events of no call. */
  get shown(): { calls: number; events: number } {
    this.flatten();
    return { calls: this.nCalls, events: this.nEvents };
  }

  row(i: number): FlatRow | null {
    this.flatten();
    return this.rows[i] ?? null;
  }

  /** The row index of an entry's own row, or -1 when it does not show. */
  indexOf(entry: Entry): number {
    this.flatten();
    return this.headerAt.get(entry) ?? -1;
  }

  call(id: string): CallEntry | undefined {
    return this.calls.get(id);
  }

  /**
   * Folds events in, in any order; each seq counts once. Returns how many
   * rows now sit above the row that was at index anchor (0 when none: the
   * view need not move).
   */
  add(events: readonly AuditEvent[], anchor = 0): number {
    const before = this.row(anchor);
    let changed = false;
    for (const e of events) {
      if (this.seen.has(e.seq)) continue;
      this.seen.add(e.seq);
      changed = true;
      const ok = this.accept(e);
      if (!e.call_id) {
        const entry: EventEntry = { type: 'event', event: e, key: e.seq, match: ok };
        if (ok) this.sorted.push(entry);
        continue;
      }
      let c = this.calls.get(e.call_id);
      if (!c) {
        c = { type: 'call', id: e.call_id, events: [e], key: e.seq, match: ok };
        this.calls.set(e.call_id, c);
        if (ok) this.sorted.push(c);
        continue;
      }
      const last = c.events[c.events.length - 1]!;
      if (e.seq > last.seq) c.events.push(e);
      else c.events.splice(sortedIndex(c.events, e.seq), 0, e);
      c.key = c.events[0]!.seq;
      if (ok && !c.match) {
        c.match = true;
        this.sorted.push(c);
      }
    }
    if (!changed) return 0;
    this.dirty = true;
    if (!before) return 0;
    const now = this.indexOf(before.entry);
    return now < 0 ? 0 : Math.max(0, now + (before.step < 0 ? 0 : before.step + 1) - anchor);
  }

  isOpen(id: string): boolean {
    return this.open.has(id);
  }

  /** Unfolds or folds a call's steps; returns whether it is now unfolded. */
  toggle(id: string, open = !this.open.has(id)): boolean {
    if (open === this.open.has(id)) return open;
    if (open) this.open.add(id);
    else this.open.delete(id);
    this.dirty = true;
    return open;
  }

  private flatten(): void {
    if (!this.dirty) return;
    this.dirty = false;
    // Nearly sorted already (pages append older entries, live batches newer
    // ones): the engine's merge sort makes this close to linear.
    this.sorted.sort((a, b) => b.key - a.key);
    const rows: FlatRow[] = [];
    this.headerAt = new Map();
    let calls = 0;
    for (const entry of this.sorted) {
      this.headerAt.set(entry, rows.length);
      if (entry.type === 'event') {
        rows.push({ entry, step: -1 });
        continue;
      }
      calls++;
      rows.push({ entry, step: -1 });
      if (this.open.has(entry.id)) for (let i = 0; i < entry.events.length; i++) rows.push({ entry, step: i });
    }
    this.rows = rows;
    this.nCalls = calls;
    this.nEvents = this.sorted.length - calls;
  }
}

function sortedIndex(events: AuditEvent[], seq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
