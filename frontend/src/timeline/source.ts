// Row sources for the virtual timeline, newest event at row 0.
//
// SeqSource (no filter): audit seqs are dense, so row i is seq top-i and the
// scrollbar spans the whole log at once; rows load in fixed seq blocks as
// they scroll into view (keyset paging with after=).
//
// ListSource (filtered): matches are sparse, so rows are the matches found so
// far; older pages load (before=) as the list end nears, and text search keeps
// scanning until the viewport is full or the log is exhausted.
//
// CallSource (the default view): one row per tool call, unfolding into its
// steps (lib/timelinegroups), and a row for each event of no call. Pages of
// every event (only the session filter goes to the server, since the others
// would split a call) load newest first as the list end nears; kind, actor
// and text filters keep a call when any of its rows matches.

import { query } from '../api/client';
import { plural } from '../lib/format';
import { EventGroups, type FlatRow } from '../lib/timelinegroups';
import type { AuditEvent, EventPage } from '../api/types';
import { type Filter, matches } from './filter';

export interface Getter {
  get<T>(path: string): Promise<T>;
}

/** An audit event, a row of the calls view, a seq the log lacks, or null: still loading. */
export type Row = AuditEvent | FlatRow | 'gap' | null;

export function isGrouped(r: Row): r is FlatRow {
  return typeof r === 'object' && r !== null && 'entry' in r;
}

export interface RowSource {
  readonly count: number;
  row(i: number): Row;
  /** Rows [start, end) are visible: load what they need. */
  ensure(start: number, end: number): void;
  /**
   * Adds live events; returns how many rows now sit above the row that was
   * at index anchor (rows inserted at the top, for the flat views).
   */
  live(batch: AuditEvent[], anchor?: number): number;
  /** Short progress line, or '' when idle. */
  readonly progress: string;
  /** False while a filtered view may still find its first rows. */
  readonly done: boolean;
  readonly error: string;
}

export const BLOCK = 200;
// Rows kept in memory by the dense view; blocks far from the viewport are
// dropped beyond this (and re-fetched if scrolled back to).
export const MAX_CACHED = 20_000;
const MAX_INFLIGHT = 3;
const RETRY_MS = 2000;

export class SeqSource implements RowSource {
  private cache = new Map<number, AuditEvent>();
  // Per block: the top seq when it was fetched (rows up to it that are
  // still missing are gaps), or 'loading'.
  private blocks = new Map<number, number | 'loading'>();
  private failedAt = new Map<number, number>();
  private inflight = 0;
  error = '';

  /** seed: events already in hand (the newest ones), shown without a request. */
  constructor(
    private top: number,
    private readonly api: Getter,
    private readonly changed: () => void,
    seed: readonly AuditEvent[] = [],
  ) {
    for (const e of seed) if (e.seq <= top) this.cache.set(e.seq, e);
  }

  get count(): number {
    return this.top;
  }
  readonly done = true;
  get progress(): string {
    return this.inflight > 0 ? 'Loading…' : '';
  }

  row(i: number): Row {
    const seq = this.top - i;
    const e = this.cache.get(seq);
    if (e) return e;
    const b = this.blocks.get(Math.floor((seq - 1) / BLOCK));
    return typeof b === 'number' && seq <= b ? 'gap' : null;
  }

  ensure(start: number, end: number): void {
    if (end <= start) return;
    const hi = this.top - start; // newest seq in view
    const lo = Math.max(1, this.top - end + 1);
    if (this.cache.size > MAX_CACHED) this.evict(lo, hi);
    const now = Date.now();
    // Newest first: that is where the eye is.
    for (let b = Math.floor((hi - 1) / BLOCK); b >= Math.floor((lo - 1) / BLOCK) && this.inflight < MAX_INFLIGHT; b--) {
      if (this.blocks.has(b) || now - (this.failedAt.get(b) ?? 0) < RETRY_MS || this.covered(b, lo, hi)) continue;
      void this.load(b);
    }
  }

  // Whole blocks only, so a kept block never has holes that would read as gaps.
  private evict(lo: number, hi: number): void {
    const margin = Math.floor(MAX_CACHED / BLOCK / 2);
    const keepLo = Math.floor((lo - 1) / BLOCK) - margin;
    const keepHi = Math.floor((hi - 1) / BLOCK) + margin;
    const outside = (b: number) => b < keepLo || b > keepHi;
    for (const seq of this.cache.keys()) if (outside(Math.floor((seq - 1) / BLOCK))) this.cache.delete(seq);
    for (const [b, state] of this.blocks) if (outside(b) && state !== 'loading') this.blocks.delete(b);
  }

  // True when every visible seq of block b is already cached (e.g. seeded).
  private covered(b: number, lo: number, hi: number): boolean {
    for (let s = Math.max(lo, b * BLOCK + 1); s <= Math.min(hi, (b + 1) * BLOCK); s++) if (!this.cache.has(s)) return false;
    return true;
  }

  private async load(b: number): Promise<void> {
    this.blocks.set(b, 'loading');
    this.inflight++;
    const fetchedTop = this.top;
    try {
      const page = await this.api.get<EventPage>('/api/v1/events' + query({ after: b * BLOCK, limit: BLOCK, order: 'asc' }));
      for (const e of page.events) if (e.seq > b * BLOCK && e.seq <= (b + 1) * BLOCK) this.cache.set(e.seq, e);
      this.blocks.set(b, fetchedTop);
      this.error = '';
    } catch (err) {
      this.blocks.delete(b);
      this.failedAt.set(b, Date.now());
      this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.inflight--;
      this.changed();
    }
  }

  live(batch: AuditEvent[]): number {
    const before = this.top;
    for (const e of batch) {
      this.cache.set(e.seq, e);
      if (e.seq > this.top) this.top = e.seq;
    }
    return this.top - before;
  }
}

// The paging ListSource and CallSource share: pages of events load newest
// first (before= the oldest so far) while fewer than slack rows lie below
// the viewport, and a failed page is tried again after RETRY_MS.
abstract class OlderPages {
  protected oldest = 0; // before= for the next page; 0 = start from the newest
  protected exhausted = false;
  protected loading = false;
  private failedAt = 0;
  private wanted = 0;
  error = '';

  constructor(
    protected readonly filter: Filter,
    protected readonly api: Getter,
    protected readonly changed: () => void,
    private readonly slack: number,
  ) {}

  abstract get count(): number;

  /** The next page's size and the filters the server applies to it. */
  protected abstract next(): { limit: number; filters: Record<string, string | undefined> };

  /** Takes in a page of events, newest first. */
  protected abstract take(events: AuditEvent[]): void;

  get done(): boolean {
    return this.exhausted;
  }

  ensure(_start: number, end: number): void {
    this.wanted = Math.max(this.wanted, end);
    if (this.exhausted || this.loading || Date.now() - this.failedAt < RETRY_MS) return;
    if (this.count < end + this.slack) void this.loadMore();
  }

  private async loadMore(): Promise<void> {
    this.loading = true;
    const { limit, filters } = this.next();
    try {
      const page = await this.api.get<EventPage>('/api/v1/events' + query({ order: 'desc', limit, before: this.oldest || undefined, ...filters }));
      this.take(page.events);
      const last = page.events[page.events.length - 1];
      if (last) this.oldest = last.seq;
      if (page.events.length < limit || this.oldest <= 1) this.exhausted = true;
      this.error = '';
    } catch (err) {
      this.failedAt = Date.now();
      this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.loading = false;
      this.changed();
    }
    // A narrow filter or a sparse text search may need several pages to
    // fill the screen.
    if (!this.error && !this.exhausted && !this.loading && this.count < this.wanted + this.slack) void this.loadMore();
  }
}

// Rows kept loaded below the viewport in the filtered list.
const LIST_SLACK = 100;

export class ListSource extends OlderPages implements RowSource {
  private rows: AuditEvent[] = [];
  private seen = new Set<number>();
  private scanned = 0;

  constructor(filter: Filter, api: Getter, changed: () => void) {
    super(filter, api, changed, LIST_SLACK);
  }

  get count(): number {
    return this.rows.length;
  }

  get progress(): string {
    if (this.exhausted) return this.filter.text.trim() ? `${plural(this.rows.length, 'match', 'matches')} in ${plural(this.scanned, 'event')}` : '';
    if (this.filter.text.trim()) return `Searching… ${plural(this.scanned, 'event')} scanned`;
    return this.loading ? 'Loading…' : '';
  }

  row(i: number): Row {
    return this.rows[i] ?? null;
  }

  protected next() {
    const text = this.filter.text.trim() !== '';
    return { limit: text ? 1000 : 500, filters: { session: this.filter.session, kind: this.filter.kind, actor: this.filter.actor } };
  }

  protected take(events: AuditEvent[]): void {
    for (const e of events) {
      this.scanned++;
      if (!this.seen.has(e.seq) && matches(this.filter, e)) {
        this.seen.add(e.seq);
        this.rows.push(e);
      }
    }
  }

  live(batch: AuditEvent[]): number {
    const fresh: AuditEvent[] = [];
    for (const e of batch) {
      if (this.seen.has(e.seq) || !matches(this.filter, e)) continue;
      this.seen.add(e.seq);
      fresh.push(e);
    }
    if (fresh.length === 0) return 0;
    fresh.reverse();
    this.rows = fresh.concat(this.rows);
    return fresh.length;
  }
}

// Rows kept loaded below the viewport in the calls view.
const CALL_SLACK = 100;
const CALL_PAGE = 1000;

export class CallSource extends OlderPages implements RowSource {
  readonly groups: EventGroups;
  private readonly local: boolean;

  /** seed: the newest events already in hand; used when they run unbroken up to newest. */
  constructor(filter: Filter, api: Getter, changed: () => void, newest = 0, seed: readonly AuditEvent[] = []) {
    super(filter, api, changed, CALL_SLACK);
    // The session filter goes to the server; the others are judged here,
    // per call, so a call is never shown in part.
    this.local = !!(filter.kind || filter.actor || filter.text.trim());
    this.groups = new EventGroups(this.local || filter.session ? (e) => matches(filter, e) : undefined);
    const first = seed[0];
    if (first && newest > 0 && seed[seed.length - 1]!.seq === newest && newest - first.seq + 1 === seed.length) {
      this.groups.add(seed);
      this.oldest = first.seq;
      if (this.oldest <= 1) this.exhausted = true;
    }
  }

  get count(): number {
    return this.groups.count;
  }

  /** Whether older events remain to be loaded. */
  get more(): boolean {
    return !this.exhausted;
  }

  get progress(): string {
    const scanned = this.groups.events;
    if (this.exhausted) {
      if (!this.local) return '';
      const { calls, events } = this.groups.shown;
      return `${plural(calls + events, 'match', 'matches')} in ${plural(scanned, 'event')}`;
    }
    if (this.local) return `Searching… ${plural(scanned, 'event')} scanned`;
    return this.loading ? 'Loading…' : '';
  }

  row(i: number): Row {
    return this.groups.row(i);
  }

  /** Unfolds or folds the call at row i; false when row i is no call. */
  toggle(i: number, open?: boolean): boolean {
    const r = this.groups.row(i);
    if (!r || r.entry.type !== 'call') return false;
    this.groups.toggle(r.entry.id, open);
    return true;
  }

  protected next() {
    return { limit: CALL_PAGE, filters: { session: this.filter.session || undefined } };
  }

  protected take(events: AuditEvent[]): void {
    this.groups.add(events);
  }

  live(batch: AuditEvent[], anchor = 0): number {
    const mine = this.filter.session ? batch.filter((e) => e.session === this.filter.session) : batch;
    return mine.length ? this.groups.add(mine, anchor) : 0;
  }
}
