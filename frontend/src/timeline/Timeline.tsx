// The live audit timeline: one row per tool call (its audit rows folded
// below it, unfolded on click) or every audit event; virtualized rows,
// server-side filters, text search, and the full event on click.

import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { AuditEvent, Session } from '../api/types';
import { clock, plural, shortId } from '../lib/format';
import { family, summarize } from '../lib/summary';
import { callView, type CallEntry } from '../lib/timelinegroups';
import { scrollTopFor } from '../lib/virtual';
import { api, liveEvents, recentEvents, store } from '../state/app';
import { metrics } from '../state/metrics';
import { useLoad } from '../ui/hooks';
import { Empty, ErrorLine } from '../ui/common';
import { href, syncHash } from '../ui/router';
import { Vis } from '../ui/Visible';
import { EventDetail } from './EventDetail';
import { type Filter, type View, NO_FILTER, filterFromParams, filterToParams, isUnfiltered, viewOf } from './filter';
import { CallSource, ListSource, SeqSource, isGrouped, type RowSource } from './source';
import { VirtualList } from './VirtualList';

const ROW_HEIGHT = 28;

const KINDS: { value: string; label: string }[] = [
  { value: '', label: 'All kinds' },
  { value: 'tool.', label: 'Tool calls and results (tool.*)' },
  { value: 'policy.', label: 'Policy decisions' },
  { value: 'approval.', label: 'Approvals' },
  { value: 'exec.', label: 'Commands run (exec.*)' },
  { value: 'session.', label: 'Sessions' },
  { value: 'run.', label: 'Confined runs (gatehouse run)' },
  { value: 'system.', label: 'System (start, pause, kill)' },
  { value: 'checkpoint.', label: 'Checkpoints' },
  { value: 'rollback.', label: 'Rollbacks' },
  { value: 'tool.call', label: 'tool.call' },
  { value: 'tool.result', label: 'tool.result' },
  { value: 'tool.denied', label: 'tool.denied' },
  { value: 'tool.error', label: 'tool.error' },
  { value: 'policy.decision', label: 'policy.decision' },
  { value: 'approval.requested', label: 'approval.requested' },
  { value: 'approval.decided', label: 'approval.decided' },
  { value: 'approval.withdrawn', label: 'approval.withdrawn' },
  { value: 'approval.overridden', label: 'approval.overridden' },
  { value: 'network.', label: 'Network (decisions, connections)' },
];

export function Timeline({ arg }: { arg: string }) {
  const [filter, setFilter] = useState<Filter>(() => filterFromParams(arg));
  const [text, setText] = useState(filter.text);
  const [selected, setSelected] = useState<AuditEvent | null>(null);
  const [active, setActive] = useState(0);
  const [unseen, setUnseen] = useState(0);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const mountedAt = useRef(performance.now());
  const painted = useRef(false);
  const sessions = useLoad<{ sessions: Session[] }>('/api/v1/sessions?limit=100');

  // Debounced search: typing does not refetch on every key.
  useEffect(() => {
    const t = setTimeout(() => setFilter((f) => (f.text === text ? f : { ...f, text })), 200);
    return () => clearTimeout(t);
  }, [text]);

  // The filter lives in the URL so a view can be linked and survives reloads.
  useEffect(() => syncHash('timeline', href('timeline', filterToParams(filter))), [filter]);

  const key = filterToParams(filter);
  const view = viewOf(filter);
  const source: RowSource = useMemo(() => {
    let frame = 0;
    const changed = () => {
      if (!frame) frame = requestAnimationFrame(() => ((frame = 0), redraw(0)));
    };
    if (view === 'calls') return new CallSource(filter, api, changed, store.get().newestSeq, recentEvents());
    return isUnfiltered(filter) ? new SeqSource(store.get().newestSeq, api, changed, recentEvents()) : new ListSource(filter, api, changed);
  }, [key]);
  const calls = source instanceof CallSource ? source : null;

  useEffect(() => {
    setActive(0);
    setUnseen(0);
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
    // A filtered view has no rows to trigger loading until its first page.
    source.ensure(0, 50);
  }, [source]);

  // Live rows arrive at the top (and running calls gain steps in place);
  // keep the rows being read where they are.
  useEffect(
    () =>
      liveEvents.on((batch) => {
        const el = scrollRef.current;
        const anchor = el && el.scrollTop > 0 ? Math.round(el.scrollTop / ROW_HEIGHT) : 0;
        const n = source.live(batch, anchor);
        if (n !== 0 && el && el.scrollTop > 0) {
          el.scrollTop = scrollTopFor(anchor + n, source.count, ROW_HEIGHT, el.clientHeight);
          if (n > 0) setUnseen((u) => u + n);
        }
        if (n !== 0) setActive((a) => (a > 0 ? Math.max(0, a + n) : a));
        redraw(0);
      }),
    [source],
  );

  // First paint: the visible rows have data and a frame has been drawn.
  useLayoutEffect(() => {
    if (painted.current || source.count === 0) return;
    const el = scrollRef.current;
    const visible = Math.min(source.count, Math.ceil((el?.clientHeight ?? 600) / ROW_HEIGHT));
    for (let i = 0; i < visible; i++) if (source.row(i) === null) return;
    painted.current = true;
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        const m = metrics();
        m.timelineFirstPaintMs = Math.round((performance.now() - mountedAt.current) * 10) / 10;
        m.timelineFirstPaintRows = source.count;
      }),
    );
  });

  // A call's row unfolds or folds its steps; any other row opens its event.
  const open = (i: number) => {
    const r = source.row(i);
    if (r === null || r === 'gap') return;
    if (!isGrouped(r)) return setSelected(r);
    if (r.entry.type === 'event') return setSelected(r.entry.event);
    if (r.step < 0) {
      calls?.toggle(i);
      redraw(0);
    } else setSelected(r.entry.events[r.step]!);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const el = scrollRef.current;
    const page = Math.max(1, Math.floor((el?.clientHeight ?? 600) / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
    if (e.key === 'Enter') {
      e.preventDefault();
      open(active);
      return;
    }
    // The tree pattern: Right unfolds a call, Left folds it (or goes from a step to its call).
    const r = calls ? source.row(active) : null;
    if (calls && r && r !== 'gap' && isGrouped(r) && r.entry.type === 'call' && (e.key === 'ArrowRight' || e.key === 'ArrowLeft')) {
      e.preventDefault();
      if (r.step >= 0) {
        if (e.key === 'ArrowLeft') setActive(calls.groups.indexOf(r.entry));
        return;
      }
      calls.toggle(active, e.key === 'ArrowRight');
      redraw(0);
      return;
    }
    const d = moves[e.key];
    if (d === undefined || source.count === 0) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(source.count - 1, active + d));
    setActive(next);
    if (el) {
      // Scroll just enough to keep the active row in view.
      const top = scrollTopFor(next, source.count, ROW_HEIGHT, el.clientHeight);
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top - el.clientHeight + ROW_HEIGHT;
    }
  };

  const toTop = () => {
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
    setUnseen(0);
    setActive(0);
  };

  const renderRow = (i: number) => {
    const row = source.row(i);
    const props = { key: i, index: i, active: i === active, onOpen: () => (setActive(i), open(i)) };
    if (row !== null && row !== 'gap' && isGrouped(row)) {
      if (row.entry.type === 'event') return <EventRow {...props} event={row.entry.event} level={1} />;
      return row.step < 0 ? <CallRow {...props} call={row.entry} open={calls?.groups.isOpen(row.entry.id) ?? false} /> : <EventRow {...props} event={row.entry.events[row.step]!} level={2} />;
    }
    return row === null || row === 'gap' ? <Placeholder {...props} gap={row === 'gap'} /> : <EventRow {...props} event={row} />;
  };

  const sessionList = sessions.data?.sessions ?? [];
  const filtered = !isUnfiltered(filter);

  return (
    <section class={`screen timeline${selected ? ' with-detail' : ''}`} aria-labelledby="timeline-h">
      <div class="screen-head">
        <h1 id="timeline-h">Timeline</h1>
        <p class="muted tl-count">{calls ? callsCount(calls, filtered, store.get().newestSeq) : filtered ? `${plural(source.count, 'matching event')} loaded` : plural(source.count, 'event')}</p>
      </div>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Rows
          <select value={view} onChange={(e) => setFilter((f) => ({ ...f, view: e.currentTarget.value as View }))}>
            <option value="calls">One per call</option>
            <option value="events">Every audit event</option>
          </select>
        </label>
        <label>
          Session
          <input list="tl-sessions" value={filter.session} placeholder="any" onChange={(e) => setFilter((f) => ({ ...f, session: e.currentTarget.value.trim() }))} />
          <datalist id="tl-sessions">
            {sessionList.map((s) => (
              <option key={s.id} value={s.id}>
                {s.client_name || s.client} {s.started_at}
              </option>
            ))}
          </datalist>
        </label>
        <label>
          Kind
          <select value={filter.kind} onChange={(e) => setFilter((f) => ({ ...f, kind: e.currentTarget.value }))}>
            {KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Actor
          <input list="tl-actors" value={filter.actor} placeholder="any" onChange={(e) => setFilter((f) => ({ ...f, actor: e.currentTarget.value.trim() }))} />
          <datalist id="tl-actors">
            {['human', 'policy', 'system', ...new Set(sessionList.map((s) => `agent:${s.client_name || s.client}`))].map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label class="grow">
          Search
          <input type="search" value={text} placeholder="words anywhere in the event" onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        {filtered && (
          <button
            type="button"
            class="btn small"
            onClick={() => {
              setText('');
              setFilter((f) => ({ ...NO_FILTER, view: f.view }));
            }}
          >
            Clear filters
          </button>
        )}
      </form>
      {source.error && <ErrorLine message={source.error} />}
      <div class="timeline-body">
        <div class="timeline-list">
          {unseen > 0 && (
            <button type="button" class="btn small new-events" onClick={toTop}>
              {calls ? plural(unseen, 'new row') : plural(unseen, 'new event')} ↑
            </button>
          )}
          <div class="tl-header" aria-hidden="true">
            <span class="c-seq">#</span>
            <span class="c-time">Time</span>
            <span class="c-kind">Kind</span>
            <span class="c-actor">Actor</span>
            <span class="c-session">Session</span>
            <span class="c-sum">What</span>
          </div>
          {source.count === 0 && source.done ? (
            <Empty title={filtered ? (calls ? 'No matching calls or events' : 'No matching events') : 'No events yet'}>
              <p>{filtered ? 'Nothing in the audit log matches these filters.' : 'Every call an agent makes will show up here as it happens.'}</p>
            </Empty>
          ) : (
            <VirtualList
              count={source.count}
              rowHeight={ROW_HEIGHT}
              scrollRef={scrollRef}
              renderRow={renderRow}
              onRange={(s, e) => source.ensure(s, e)}
              label={calls ? 'Calls and other audit events, newest first; a call unfolds into its steps' : 'Audit events, newest first'}
              role={calls ? 'tree' : 'listbox'}
              activeId={source.count ? `tl-row-${active}` : undefined}
              onKeyDown={onKeyDown}
            />
          )}
          <p class="tl-foot muted" aria-live="polite">
            {source.progress}
          </p>
        </div>
        {selected && <EventDetail event={selected} onClose={() => (setSelected(null), scrollRef.current?.focus())} />}
      </div>
    </section>
  );
}

interface RowProps {
  index: number;
  active: boolean;
  onOpen(): void;
}

/** The header's count: calls and other events shown, and how much of the log is loaded. */
function callsCount(src: CallSource, filtered: boolean, newest: number): string {
  const { calls, events } = src.groups.shown;
  let shown = plural(calls, filtered ? 'matching call' : 'call');
  if (events > 0) shown += `, ${plural(events, filtered ? 'other matching event' : 'other event', filtered ? 'other matching events' : 'other events')}`;
  const loaded = src.groups.events;
  if (!src.more) return `${shown} · ${plural(loaded, 'audit event')}`;
  return `${shown} · the newest ${plural(loaded, 'audit event')}${newest > loaded ? ` of ${newest.toLocaleString('en-US')}` : ''}; scroll for more`;
}

function SessionCell({ session }: { session: string }) {
  if (!session) return <span class="c-session" />;
  return (
    <span class="c-session">
      <a href={href('sessions', session)} title="Open the session: its calls, with diff, rollback and undo" onClick={(e) => e.stopPropagation()}>
        {shortId(session)}
      </a>
    </span>
  );
}

function Placeholder({ index, active, gap }: RowProps & { gap: boolean }) {
  return (
    <div id={`tl-row-${index}`} class="tl-row placeholder" role="option" aria-selected={active}>
      <span class="c-sum muted">{gap ? 'event not available' : 'loading…'}</span>
    </div>
  );
}

/** One audit event: a row of its own, or (level 2) a step of an unfolded call. */
function EventRow({ index, active, onOpen, event, level }: RowProps & { event: AuditEvent; level?: 1 | 2 }) {
  const fam = family(event.kind);
  const tree = level !== undefined;
  return (
    <div
      id={`tl-row-${index}`}
      class={`tl-row${level === 2 ? ' tl-step' : ''}${active ? ' active' : ''}`}
      role={tree ? 'treeitem' : 'option'}
      aria-level={level}
      aria-selected={active}
      data-seq={event.seq}
      data-kind={event.kind}
      data-call={level === 2 ? event.call_id : undefined}
      onClick={onOpen}
    >
      <span class="c-seq">{event.seq}</span>
      <span class="c-time" title={new Date(event.time).toLocaleString()}>
        {clock(event.time)}
      </span>
      <span class={`c-kind kind k-${fam}`}>{event.kind}</span>
      <span class="c-actor">{event.actor}</span>
      <SessionCell session={level === 2 ? '' : event.session} />
      <span class="c-sum">{summarize(event)}</span>
    </div>
  );
}

/** A tool call: the tool, what it did and how it ended; its steps unfold below it. */
function CallRow({ index, active, onOpen, call, open }: RowProps & { call: CallEntry; open: boolean }) {
  const v = callView(call);
  const c = v.summary;
  const first = call.events[0]!;
  const what = c.tool && c.target.startsWith(c.tool + ' ') ? c.target.slice(c.tool.length + 1) : c.target === c.tool ? '' : c.target;
  return (
    <div
      id={`tl-row-${index}`}
      class={`tl-row tl-call${open ? ' open' : ''}${active ? ' active' : ''}`}
      role="treeitem"
      aria-level={1}
      aria-expanded={open}
      aria-selected={active}
      data-seq={call.key}
      data-kind="call"
      data-call={call.id}
      data-tool={c.tool}
      data-outcome={v.outcome.name}
      onClick={onOpen}
    >
      <span class="c-seq">
        <span class="chev" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>{' '}
        {call.key}
      </span>
      <span class="c-time" title={new Date(first.time).toLocaleString()}>
        {clock(first.time)}
      </span>
      <span class="c-kind kind k-tool">{c.tool || 'call'}</span>
      <span class="c-actor">{v.actor}</span>
      <SessionCell session={v.session} />
      <span class="c-sum call-sum">
        <code class="c-target">
          <Vis text={what || c.tool || call.id} />
        </code>
        <span class={`outcome o-${v.outcome.name}`}>
          <Vis text={v.outcome.text} />
        </span>
        <span class="muted steps">{plural(call.events.length, 'step')}</span>
      </span>
    </div>
  );
}
