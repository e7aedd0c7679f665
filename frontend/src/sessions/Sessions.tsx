// Session history: who connected, where, in which mode, for how long, and
// how their calls went.

import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../api/types';
import { query } from '../api/client';
import { duration, shortId, when } from '../lib/format';
import { tallyText } from '../lib/outcome';
import { sessionState, STATE_HELP } from '../lib/sessionview';
import { liveEvents, reportError, api } from '../state/app';
import { Empty, ErrorLine } from '../ui/common';
import { ConfinedBadge } from './ConfinedBadge';
import { Vis } from '../ui/Visible';
import { useLoad, useNow } from '../ui/hooks';
import { href } from '../ui/router';

const PAGE = 100;

export function Sessions() {
  const [status, setStatus] = useState('');
  const first = useLoad<{ sessions: Session[] }>('/api/v1/sessions' + query({ status, limit: PAGE }));
  const [older, setOlder] = useState<Session[]>([]);
  const [more, setMore] = useState(true);
  const now = useNow();

  useEffect(() => setOlder([]), [status]);
  useEffect(() => setMore((first.data?.sessions.length ?? 0) >= PAGE), [first.data]);

  // Session starts, ends and counters change with events: refresh lazily.
  useEffect(() => {
    let t: ReturnType<typeof setTimeout> | undefined;
    const off = liveEvents.on((batch) => {
      if (!batch.some((e) => e.kind.startsWith('session.') || e.kind === 'tool.result')) return;
      clearTimeout(t);
      t = setTimeout(first.reload, 500);
    });
    return () => (off(), clearTimeout(t));
  }, [first.reload]);

  const list = [...(first.data?.sessions ?? []), ...older];

  const loadOlder = async () => {
    const last = list[list.length - 1];
    if (!last) return;
    try {
      const r = await api.get<{ sessions: Session[] }>('/api/v1/sessions' + query({ status, limit: PAGE, before: last.started_at }));
      setOlder((o) => [...o, ...r.sessions]);
      setMore(r.sessions.length >= PAGE);
    } catch (err) {
      reportError(err);
    }
  };

  return (
    <section class="screen" aria-labelledby="sessions-h">
      <div class="screen-head">
        <h1 id="sessions-h">Sessions</h1>
        <label class="inline">
          Show
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">all sessions</option>
            <option value="active">active (and idle)</option>
            <option value="ended">ended</option>
            <option value="killed">killed</option>
          </select>
        </label>
      </div>
      {first.error && <ErrorLine message={first.error.message} />}
      {first.data && list.length === 0 ? (
        <Empty title={status ? `No ${status} sessions` : 'No sessions yet'}>
          <p>
            A session starts when an agent connects over MCP. Set one up on <a href={href('connect')}>Connect</a>.
          </p>
        </Empty>
      ) : (
        <div class="table-wrap">
          <table class="sessions">
            <thead>
              <tr>
                <th scope="col">Client</th>
                <th scope="col">Workspace</th>
                <th scope="col">Mode</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col" class="num">
                  Calls
                </th>
                <th scope="col" title="Each call counted once, by how it ended; how many asked you is counted apart">
                  How they ended
                </th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => {
                const st = sessionState(s);
                return (
                  <tr key={s.id} data-session={s.id} data-state={st} class={`row-${st}`}>
                    <td>
                      <a href={href('sessions', s.id)}>
                        <Vis text={s.client_name || s.client || shortId(s.id)} />
                      </a>
                      {s.client_version && (
                        <span class="muted">
                          {' '}
                          <Vis text={s.client_version} />
                        </span>
                      )}
                      <span class="muted small transport"> · {s.transport}</span> <ConfinedBadge session={s} />
                    </td>
                    <td class="path" title={(s.workspaces ?? []).join('\n')}>
                      {(s.workspaces ?? [])[0] ?? '—'}
                      {(s.workspaces ?? []).length > 1 && <span class="muted"> +{(s.workspaces ?? []).length - 1}</span>}
                    </td>
                    <td>
                      <span class={`mode m-${s.mode}`}>{s.mode}</span>
                    </td>
                    <td>{when(s.started_at)}</td>
                    <td>{duration((s.ended_at ? Date.parse(s.ended_at) : now) - Date.parse(s.started_at))}</td>
                    <td class="num">{s.calls}</td>
                    <td class="small outcomes">
                      {tallyText(s) || '—'}
                      {s.asked > 0 && <span class="muted"> · {s.asked} asked you</span>}
                    </td>
                    <td>
                      <span class={`status st-${st}`} aria-description={STATE_HELP[st]}>
                        {st}
                      </span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {more && list.length > 0 && (
            <button type="button" class="btn" onClick={loadOlder}>
              Load older sessions
            </button>
          )}
        </div>
      )}
    </section>
  );
}
