// One session: facts, live mode switch, and its calls with checkpoints,
// diffs and rollback.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, query } from '../api/client';
import { MODES, type AuditEvent, type Checkpoint, type EventPage, type Mode, type Session } from '../api/types';
import { binaryChanges, type BinaryNote } from '../lib/binary';
import { approvalText, callOutcome, groupCalls, type CallSummary } from '../lib/calls';
import { callsSummary } from '../lib/outcome';
import { callTools, confinedHelp, MODE_HELP, runCalls, sessionState, STATE_HELP, transportLabel } from '../lib/sessionview';
import { clock, duration, when, bytes, plural } from '../lib/format';
import { api, liveEvents, reportError } from '../state/app';
import { Diff } from '../ui/Diff';
import { Empty, ErrorLine } from '../ui/common';
import { Vis } from '../ui/Visible';
import { useLoad, useNow } from '../ui/hooks';
import { href } from '../ui/router';
import { BudgetsBox } from './Budgets';
import { ConfinedBadge } from './ConfinedBadge';
import { RollbackPreview, type RollbackTarget } from './RollbackPreview';

// Enough for any realistic session; beyond it the timeline has the rest.
const MAX_EVENTS = 20_000;

function useSessionEvents(id: string) {
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [error, setError] = useState('');
  const [capped, setCapped] = useState(false);
  useEffect(() => {
    let stop = false;
    setEvents([]);
    const all: AuditEvent[] = [];
    (async () => {
      let after = 0;
      while (!stop && all.length < MAX_EVENTS) {
        const page = await api.get<EventPage>('/api/v1/events' + query({ session: id, after, limit: 1000 }));
        all.push(...page.events);
        if (page.events.length < 1000) break;
        after = page.events[page.events.length - 1]!.seq;
      }
      if (!stop) {
        setEvents([...all]);
        setCapped(all.length >= MAX_EVENTS);
      }
    })().catch((err: unknown) => !stop && setError(err instanceof Error ? err.message : String(err)));
    const off = liveEvents.on((batch) => {
      const mine = batch.filter((e) => e.session === id);
      if (mine.length) setEvents((ev) => [...ev, ...mine.filter((e) => e.seq > (ev[ev.length - 1]?.seq ?? 0))]);
    });
    return () => {
      stop = true;
      off();
    };
  }, [id]);
  return { events, error, capped };
}

export function SessionDetail({ id }: { id: string }) {
  const sess = useLoad<Session>(`/api/v1/sessions/${encodeURIComponent(id)}`);
  const cps = useLoad<{ checkpoints: Checkpoint[] }>(`/api/v1/sessions/${encodeURIComponent(id)}/checkpoints`);
  const { events, error, capped } = useSessionEvents(id);
  const calls = useMemo(() => groupCalls(events), [events]);
  const [modeBusy, setModeBusy] = useState(false);
  const [modeErr, setModeErr] = useState('');
  const now = useNow();

  // Counters and checkpoints move as calls finish.
  useEffect(() => {
    let t: ReturnType<typeof setTimeout> | undefined;
    const off = liveEvents.on((batch) => {
      if (!batch.some((e) => e.session === id)) return;
      clearTimeout(t);
      t = setTimeout(() => (sess.reload(), cps.reload()), 400);
    });
    return () => (off(), clearTimeout(t));
  }, [id, sess.reload, cps.reload]);

  const byCall = useMemo(() => {
    const m = new Map<string, Checkpoint[]>();
    for (const c of cps.data?.checkpoints ?? []) m.set(c.call_id, [...(m.get(c.call_id) ?? []), c]);
    return m;
  }, [cps.data]);
  // What changed while a confined run lasted (see runCalls).
  const runs = useMemo(() => runCalls(cps.data?.checkpoints ?? []), [cps.data]);

  const setMode = async (mode: Mode) => {
    setModeBusy(true);
    setModeErr('');
    try {
      sess.set(await api.post<Session>(`/api/v1/sessions/${encodeURIComponent(id)}/mode`, { mode }));
    } catch (err) {
      setModeErr(err instanceof ApiError && err.notFound && /no route|does not offer/.test(err.message) ? 'Changing the mode live is not available from this daemon yet.' : (err as Error).message);
    } finally {
      setModeBusy(false);
    }
  };

  if (sess.error?.notFound) {
    return (
      <section class="screen">
        <p>
          <a href={href('sessions')}>← Sessions</a>
        </p>
        <Empty title="No such session">
          <p>{sess.error.message}</p>
        </Empty>
      </section>
    );
  }
  const s = sess.data;
  const st = s ? sessionState(s) : null;
  const cpUnavailable = cps.error?.notFound ?? false;

  return (
    <section class="screen" aria-labelledby="session-h">
      <p>
        <a href={href('sessions')}>← Sessions</a>
      </p>
      <div class="screen-head">
        <h1 id="session-h">
          {s ? s.client_name || s.client || 'Session' : 'Session'} <span class="muted mono">{id}</span>
        </h1>
        {s && st && (
          <span class={`status st-${st}`} data-state={st}>
            {st}
          </span>
        )}
      </div>
      {sess.error && <ErrorLine message={sess.error.message} />}
      {s && st && st !== 'active' && <p class={`notice ${st === 'idle' ? 'info' : 'muted-notice'} state-note`}>This session is {st}: {STATE_HELP[st]}.</p>}
      {s && (
        <div class={`session-facts state-${st}`}>
          <dl class="facts-grid">
            <dt>Client</dt>
            <dd>
              <Vis text={s.client_name || s.client} /> <Vis text={s.client_version} />
            </dd>
            <dt>Transport</dt>
            <dd data-transport={s.transport}>
              {transportLabel(s.transport)} <ConfinedBadge session={s} />
              {s.confined && <span class="muted small"> {confinedHelp(s)}</span>}
            </dd>
            {s.run && (
              <>
                <dt>Agent run</dt>
                <dd>
                  <code>
                    <Vis text={s.run} />
                  </code>
                </dd>
              </>
            )}
            {s.goal && (
              <>
                <dt>Goal</dt>
                <dd class="goal">
                  <q>
                    <Vis text={s.goal} multiline />
                  </q>
                </dd>
              </>
            )}
            <dt>Workspaces</dt>
            <dd>{(s.workspaces ?? []).map((w) => <code key={w} class="block">{w}</code>)}</dd>
            <dt>Started</dt>
            <dd>
              {when(s.started_at)} · {duration((s.ended_at ? Date.parse(s.ended_at) : now) - Date.parse(s.started_at))}
              {s.end_reason && <span class="muted"> · {s.end_reason}</span>}
            </dd>
            <dt>Calls</dt>
            <dd>
              <span class="calls-summary">{callsSummary(s)}</span> · {bytes(s.output_bytes)} output · {s.cpu_ms} ms CPU
            </dd>
            {s.tokens && (
              <>
                <dt>Tokens</dt>
                <dd class="tokens">
                  {s.tokens.known ? (
                    <>
                      {s.tokens.input.toLocaleString()} in · {s.tokens.output.toLocaleString()} out
                      {s.tokens.cost_usd !== undefined && ` · $${s.tokens.cost_usd.toFixed(2)}`}
                    </>
                  ) : (
                    <span class="muted">unknown: {s.tokens.why}</span>
                  )}
                </dd>
              </>
            )}
          </dl>
          <div class="mode-box">
            <label for="mode-select">Mode</label>
            <select id="mode-select" value={s.mode} disabled={modeBusy || s.status !== 'active'} onChange={(e) => void setMode(e.currentTarget.value as Mode)}>
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
            <p class="muted small">{MODE_HELP[s.mode as Mode] ?? ''}</p>
            {s.status !== 'active' && <p class="muted small">The session has ended; its mode can no longer change.</p>}
            {modeErr && <ErrorLine message={modeErr} />}
            {s.status === 'active' && <BudgetsBox session={id} />}
          </div>
        </div>
      )}
      <div class="screen-head">
        <h2>Calls</h2>
        <a class="muted" href={href('timeline', `session=${encodeURIComponent(id)}`)}>
          All events in the timeline →
        </a>
      </div>
      {error && <ErrorLine message={error} />}
      {capped && <p class="notice info">Showing the first {plural(MAX_EVENTS, 'event')} of this session; the timeline has the rest.</p>}
      {cpUnavailable && <p class="notice info">Checkpoints and rollback are not available from this daemon yet.</p>}
      {cps.error && !cpUnavailable && <ErrorLine message={cps.error.message} />}
      {calls.length === 0 && runs.length === 0 ? (
        <Empty title="No calls in this session yet" />
      ) : (
        <>
          <CallsLegend />
          <ol class="calls" aria-describedby="calls-legend">
            {[...runs, ...calls].map((c) => (
              <CallRow key={c.id} session={id} call={c} checkpoints={byCall.get(c.id) ?? []} rollbackAvailable={!cpUnavailable} onRolledBack={cps.reload} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

// What the columns of a call row and its checkpoint tools mean.
function CallsLegend() {
  return (
    <div class="calls-legend" id="calls-legend">
      <p class="muted small">
        Each row: the time, what the call did, <strong>policy</strong> (what your policy said: allow, ask or deny), <strong>your answer</strong> when a card asked (on the
        call itself, or <em>changes</em> on what it changed), and how it ended: <em>applied</em>, <em>applied after your approval</em>, <em>discarded by you</em> with your
        message, <em>failed (exit 2)</em> and so on. The summary above counts each call once by how it ended; how many asked you is counted apart. <strong>Checkpoints</strong>: <em>before</em> is the workspace just before the call ran, <em>after</em> just after it. <em>Diff</em> shows what the call changed,{' '}
        <em>Rollback to here</em> puts the whole workspace back to that moment, <em>Undo this call</em> reverts only this call’s changes. Calls that only read take no checkpoints.
      </p>
    </div>
  );
}

function CallRow({ session, call, checkpoints, rollbackAvailable, onRolledBack }: { session: string; call: CallSummary; checkpoints: Checkpoint[]; rollbackAvailable: boolean; onRolledBack(): void }) {
  const [diff, setDiff] = useState<{ text: string; binaries: BinaryNote[] } | null>(null);
  const [diffErr, setDiffErr] = useState('');
  const [rollback, setRollback] = useState<RollbackTarget | null>(null);
  const tools = callTools(call.tool, checkpoints);
  const notRestorable = checkpoints.flatMap((c) => c.not_restorable ?? []).map((n) => (typeof n === 'string' ? n : n.path));
  const phases = checkpoints.map((c) => (c.phase === 'pre' ? 'before' : 'after'));

  const loadDiff = async () => {
    if (diff !== null) return setDiff(null);
    try {
      const r = await api.get<{ diff: string; changes?: { path: string; kind?: string; binary?: boolean; old_size?: number; new_size?: number }[] }>(
        `/api/v1/sessions/${encodeURIComponent(session)}/calls/${encodeURIComponent(call.id)}/diff`,
      );
      setDiff({ text: r.diff ?? '', binaries: binaryChanges(r.changes) });
      setDiffErr('');
    } catch (err) {
      if (err instanceof ApiError && err.notFound) setDiffErr('No diff is available for this call.');
      else reportError(err);
    }
  };

  const hasTools = tools.diff || tools.rollbackTo || notRestorable.length > 0;
  // How it ended, once it has; while a card waits, that it waits.
  const out = callOutcome(call);
  const shown = out.name;
  return (
    <li class={`call o-${shown}`} data-call={call.id} data-tool={call.tool} data-outcome={call.end?.outcome ?? ''}>
      <div class="call-line">
        <span class="c-time">{clock(call.time)}</span>
        <code class="c-target">
          <Vis text={call.target || call.id} />
        </code>
        <span class={`verdict v-${call.verdict || 'none'}`}>{call.verdict || '—'}</span>
        <span class="muted">{approvalText(call)}</span>
        <span class={`outcome o-${shown}`}>
          <Vis text={out.text} />
        </span>
      </div>
      {hasTools && (
        <div class="call-tools">
          {phases.length > 0 && <span class="muted small">checkpoints: {phases.join(' + ')}</span>}
          {notRestorable.length > 0 && (
            <span class="badge warn">
              not restorable: {notRestorable.length} ({notRestorable.slice(0, 3).join(', ')}
              {notRestorable.length > 3 ? ', …' : ''})
            </span>
          )}
          {tools.diff && (
            <button type="button" class="btn small" aria-expanded={diff !== null} onClick={loadDiff}>
              {diff !== null ? 'Hide diff' : 'Diff'}
            </button>
          )}
          {rollbackAvailable && tools.rollbackTo && (
            <button
              type="button"
              class="btn small"
              onClick={() => setRollback({ checkpoint: tools.rollbackTo!.id, title: tools.rollbackTo!.phase === 'post' ? 'Roll back to right after this call' : 'Roll back to right before this call' })}
            >
              Rollback to here
            </button>
          )}
          {rollbackAvailable && tools.undo && (
            <button type="button" class="btn small" onClick={() => setRollback({ call: call.id, title: call.tool === 'run' ? 'Undo what the agent changed itself' : 'Undo only this call' })}>
              {call.tool === 'run' ? 'Undo these changes' : 'Undo this call'}
            </button>
          )}
        </div>
      )}
      {diffErr && <p class="muted small">{diffErr}</p>}
      {diff !== null &&
        (diff.text || diff.binaries.length ? <Diff text={diff.text} binaries={diff.binaries} label={`Changes made by ${call.id}`} /> : <p class="muted small">This call changed no files.</p>)}
      {rollback && (
        <RollbackPreview
          session={session}
          target={rollback}
          onClose={(done) => {
            setRollback(null);
            if (done) onRolledBack();
          }}
          onUndo={(t) => {
            onRolledBack();
            setRollback(t);
          }}
        />
      )}
    </li>
  );
}
