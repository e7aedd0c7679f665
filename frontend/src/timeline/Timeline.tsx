// The live audit timeline: virtualized rows, server-side filters, text
// search, and the full event on click.

import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { AuditEvent, Session } from '../api/types';
import { clock, plural, shortId } from '../lib/format';
import { family, summarize } from '../lib/summary';
import { scrollTopFor } from '../lib/virtual';
import { api, liveEvents, recentEvents, store } from '../state/app';
import { metrics } from '../state/metrics';
import { useLoad } from '../ui/hooks';
import { Empty, ErrorLine } from '../ui/common';
import { href } from '../ui/router';
import { EventDetail } from './EventDetail';
import { type Filter, NO_FILTER, filterFromParams, filterToParams, isUnfiltered } from './filter';
import { ListSource, SeqSource, type Row, type RowSource } from './source';
import { VirtualList } from './VirtualList';

const ROW_HEIGHT = 28;

const KINDS: { value: string; label: string }[] = [
  { value: '', label: 'All kinds' },
  { value: 'tool.', label: 'Tool calls and results (tool.*)' },
  { value: 'policy.', label: 'Policy decisions' },
  { value: 'approval.', label: 'Approvals' },
  { value: 'exec.', label: 'Commands run (exec.*)' },
  { value: 'session.', label: 'Sessions' },
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
  useEffect(() => {
    const want = href('timeline', filterToParams(filter));
    if (location.hash !== want) history.replaceState(null, '', want);
  }, [filter]);

  const key = filterToParams(filter);
  const source: RowSource = useMemo(() => {
    let frame = 0;
    const changed = () => {
      if (!frame) frame = requestAnimationFrame(() => ((frame = 0), redraw(0)));
    };
    return isUnfiltered(filter) ? new SeqSource(store.get().newestSeq, api, changed, recentEvents()) : new ListSource(filter, api, changed);
  }, [key]);

  useEffect(() => {
    setActive(0);
    setUnseen(0);
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
    // A filtered view has no rows to trigger loading until its first page.
    source.ensure(0, 50);
  }, [source]);

  // Live rows arrive at the top; keep the rows being read where they are.
  useEffect(
    () =>
      liveEvents.on((batch) => {
        const n = source.live(batch);
        if (n === 0) return;
        const el = scrollRef.current;
        if (el && el.scrollTop > 0) {
          el.scrollTop = scrollTopFor(Math.round(el.scrollTop / ROW_HEIGHT) + n, source.count, ROW_HEIGHT, el.clientHeight);
          setUnseen((u) => u + n);
        }
        setActive((a) => (a > 0 ? a + n : a));
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

  const open = (i: number) => {
    const r = source.row(i);
    if (r && r !== 'gap') setSelected(r);
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

  const renderRow = (i: number) => <TimelineRow key={i} index={i} row={source.row(i)} active={i === active} onOpen={() => (setActive(i), open(i))} />;

  const sessionList = sessions.data?.sessions ?? [];
  const filtered = !isUnfiltered(filter);

  return (
    <section class={`screen timeline${selected ? ' with-detail' : ''}`} aria-labelledby="timeline-h">
      <div class="screen-head">
        <h1 id="timeline-h">Timeline</h1>
        <p class="muted">{filtered ? `${plural(source.count, 'matching event')} loaded` : plural(source.count, 'event')}</p>
      </div>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
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
              setFilter(NO_FILTER);
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
              {plural(unseen, 'new event')} ↑
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
            <Empty title={filtered ? 'No matching events' : 'No events yet'}>
              <p>{filtered ? 'Nothing in the audit log matches these filters.' : 'Every call an agent makes will show up here as it happens.'}</p>
            </Empty>
          ) : (
            <VirtualList
              count={source.count}
              rowHeight={ROW_HEIGHT}
              scrollRef={scrollRef}
              renderRow={renderRow}
              onRange={(s, e) => source.ensure(s, e)}
              label="Audit events, newest first"
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

function TimelineRow({ index, row, active, onOpen }: { index: number; row: Row; active: boolean; onOpen(): void }) {
  const id = `tl-row-${index}`;
  if (row === null || row === 'gap') {
    return (
      <div id={id} class="tl-row placeholder" role="option" aria-selected={active}>
        <span class="c-sum muted">{row === 'gap' ? 'event not available' : 'loading…'}</span>
      </div>
    );
  }
  const fam = family(row.kind);
  return (
    <div id={id} class={`tl-row${active ? ' active' : ''}`} role="option" aria-selected={active} data-seq={row.seq} data-kind={row.kind} onClick={onOpen}>
      <span class="c-seq">{row.seq}</span>
      <span class="c-time" title={new Date(row.time).toLocaleString()}>
        {clock(row.time)}
      </span>
      <span class={`c-kind kind k-${fam}`}>{row.kind}</span>
      <span class="c-actor">{row.actor}</span>
      <span class="c-session">{row.session ? shortId(row.session) : ''}</span>
      <span class="c-sum">{summarize(row)}</span>
    </div>
  );
}
